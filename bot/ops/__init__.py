"""Running the bot for many servers: quiet failure logs and JSON logs (``logs``), Prometheus
metrics (``metrics``), the health endpoints (``health``), and shards and clusters (``shards``)."""
