FROM python:3.11-slim

RUN useradd --create-home --uid 10001 memgate \
 && mkdir -p /data /config && chown memgate:memgate /data /config
WORKDIR /app
COPY . /app
RUN pip install --no-cache-dir /app

USER memgate
ENV MEMGATE_DATABASE__PATH=/data/memgate.db \
    MEMGATE_SERVER__HOST=0.0.0.0 \
    FASTMCP_CHECK_FOR_UPDATES=off
EXPOSE 8765
VOLUME ["/data"]
# Configure [http.auth] with MEMGATE_HTTP__AUTH__* variables, or mount a memgate.toml and
# set MEMGATE_CONFIG=/config/memgate.toml.
CMD ["sh", "-c", "memgate init && memgate serve --transport http"]
