# syntax=docker/dockerfile:1
# One image for judgelab, the Prefect server and the Dask scheduler and workers
# (docker-compose.yml), installed from the hash-locked requirements like `make setup`.
FROM python:3.11-slim-bookworm

# llama-cpp-python has no wheel on the index: pip compiles it (about 10 minutes on 2 cores).
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential cmake git \
    && rm -rf /var/lib/apt/lists/*

# llama.cpp's CMake flags; empty = judgelab/bootstrap.py's portable x86-64 baseline (no
# -march=native, AVX-512 or AMX: an image built on one host runs on any other).
ARG JUDGELAB_LLAMA_CMAKE_ARGS=""

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

WORKDIR /app

# Dependencies before the code, so a code change does not rebuild them. Same steps as the
# Makefile's setup target. The lock's local --extra-index-url/--find-links lines point at
# paths that do not exist here: pip warns, skips them and installs from PyPI, by hash.
# The cache mount keeps the portable llama-cpp-python wheel (bootstrap's own directory).
COPY requirements.lock requirements-nodeps.txt pyproject.toml ./
COPY judgelab/bootstrap.py judgelab/bootstrap.py
RUN --mount=type=cache,target=/root/.cache/judgelab \
    python judgelab/bootstrap.py \
    && python -m pip install --require-hashes -r requirements.lock \
    && python -m pip install --require-hashes --no-deps -r requirements-nodeps.txt

COPY . .
RUN python -m pip install --no-deps --no-build-isolation -e .

# judgelab/env.py's defaults, for every process in the image: the Dask workers and the
# Prefect server import litellm and Prefect without going through the judgelab command.
ENV LITELLM_LOCAL_MODEL_COST_MAP=True \
    LITELLM_OFFLINE_MODE=true \
    PREFECT_HOME=/app/.prefect \
    PREFECT_SERVER_ANALYTICS_ENABLED=false \
    PREFECT_LOGGING_LEVEL=WARNING \
    PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS=120 \
    PREFECT_UI_ENABLED=false \
    TOKENIZERS_PARALLELISM=false \
    OPENBLAS_NUM_THREADS=1 \
    DASK_LOGGING__DISTRIBUTED=warning \
    JUDGELAB_DATA_DIR=/data

# Not root. A new named volume mounted at /data takes this directory's owner.
RUN useradd --create-home --uid 10001 judgelab \
    && mkdir -p /data /app/.prefect \
    && chown judgelab:judgelab /data /app/.prefect
USER judgelab

CMD ["judgelab", "--help"]
