SELECT secret FROM base_server_secret WHERE name = :name
