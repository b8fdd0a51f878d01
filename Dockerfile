# The referee bot: `docker build -t referee .` then
#   docker run -e DISCORD_TOKEN=... -v referee-data:/data referee
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    REFEREE_DB=/data/referee.db

RUN useradd --create-home --uid 10001 referee \
    && mkdir -p /data && chown referee:referee /data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY rules_core ./rules_core
COPY bot ./bot
COPY cogs ./cogs
RUN pip install --no-cache-dir .

USER referee
VOLUME ["/data"]
ENTRYPOINT ["referee"]
CMD ["run"]
