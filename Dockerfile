FROM python:3.11-slim

RUN useradd --create-home --uid 10001 memgate \
 && mkdir -p /data /config && chown memgate:memgate /data /config
WORKDIR /app
COPY . /app
RUN pip install --no-cache-dir /app \
 && install -m 0755 /app/docker/entrypoint.sh /usr/local/bin/memgate-entrypoint

USER memgate
# MEMGATE_TENANTS: the tenants the entrypoint sets up with `memgate init` (comma-separated).
ENV MEMGATE_DATABASE__PATH=/data/memgate.db \
    MEMGATE_SERVER__HOST=0.0.0.0 \
    MEMGATE_TENANTS="" \
    FASTMCP_CHECK_FOR_UPDATES=off
EXPOSE 8765
VOLUME ["/data"]
# Configure [http.auth] with MEMGATE_HTTP__AUTH__* variables, or mount a memgate.toml at
# /config/memgate.toml (the entrypoint reads it when MEMGATE_CONFIG is unset).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/health' % os.environ.get('MEMGATE_SERVER__PORT', '8765'), timeout=4)"]
ENTRYPOINT ["memgate-entrypoint"]
CMD ["memgate", "serve", "--transport", "http"]
