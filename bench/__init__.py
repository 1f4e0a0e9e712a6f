"""memgate's benchmark suite: one module per question, each printing a table and writing
bench/results/<name>.json. `python3 -m bench all` runs them in turn; see docs/benchmarks.md's
"Benchmarks" section for what each measures and the latest figures."""

import os as _os

# One BLAS thread, set before numpy loads: on a shared 2-core machine a second BLAS thread
# waking for each matrix-vector product costs more than it saves and makes floors erratic.
# The manager's own vector search runs in the same process under the same setting.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_name, "1")
