from memgate.server.cli import main

main()
