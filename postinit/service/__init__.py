"""postinit over HTTP: a thin FastAPI layer over the library (``postinit serve``).

>>> from postinit.service import create_app, Settings
>>> app = create_app(Settings(max_body_bytes=1 << 20))         # doctest: +SKIP

Endpoints (all under ``/v1`` except operations): ``POST /v1/resolve``,
``/v1/why``, ``/v1/why-not``, ``/v1/what-if``, ``/v1/diff``; ``GET /v1/rules``,
``/v1/rules/{id}``, ``/v1/graph``, ``/v1/schema``, ``/v1/models``, ``/healthz``,
``/metrics``. The OpenAPI document is at ``/openapi.json`` (UI at ``/docs``).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

import structlog

from postinit.service._app import Settings, create_app

__all__ = ["Settings", "create_app", "serve"]


def _configure_logging() -> None:
    """JSON access logs on stderr (only when the service is the process: ``serve``).

    The engine's per-rule events (``postinit.engine``) are kept at ERROR: every
    rule firing is already in the response's trace, and logging each one per
    request would flood the log and cost throughput.
    """
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    root = logging.getLogger("postinit")
    root.handlers = [handler]
    root.setLevel(logging.INFO)
    root.propagate = False
    logging.getLogger("postinit.engine").setLevel(logging.ERROR)
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            structlog.contextvars.merge_contextvars,
            structlog.stdlib.add_logger_name,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.stdlib.BoundLogger,
        logger_factory=structlog.stdlib.LoggerFactory(),
        cache_logger_on_first_use=True,
    )


def serve(host: str = "127.0.0.1", port: int = 8000, workers: int = 1,
          settings: Settings | None = None, rules: tuple[str, ...] | None = None) -> None:
    """Run the service with uvicorn; the defaults bind to loopback only.

    ``rules`` names site policy modules or files (``postinit serve --rules``), loaded at start.
    """
    import uvicorn

    from postinit.service._protocol import uvicorn_options

    _configure_logging()
    base = settings or Settings()
    update: dict[str, Any] = {"host": host, "port": port, "workers": workers}
    if rules is not None:
        update["rules"] = tuple(rules)
    settings = base.model_copy(update=update)
    if workers > 1:
        # each worker process builds its own app (and its own metrics registry) with these settings and
        # the same logging; the supervisor binds first
        _announce(host, port, workers)
        os.environ[_SETTINGS_ENV] = settings.model_dump_json()
        uvicorn.run("postinit.service:_worker_app", factory=True, host=host, port=port,
                    workers=workers, access_log=False, log_level="warning", **uvicorn_options())
    else:
        config = uvicorn.Config(create_app(settings), host=host, port=port, access_log=False, log_level="warning",
                                **uvicorn_options())
        _server_class()(config).run()


_SETTINGS_ENV = "POSTINIT_SERVE_SETTINGS"
"""How ``serve`` hands its settings to the worker processes uvicorn starts (they inherit the environment)."""


def _worker_app() -> Any:
    """One worker process's app (``serve --workers N``): the supervisor's settings and logging."""
    _configure_logging()
    raw = os.environ.get(_SETTINGS_ENV)
    return create_app(Settings.model_validate_json(raw) if raw else None)


def _announce(host: str, port: int, workers: int = 1) -> None:
    """The one start-up line on stderr: where the service listens and where its docs are."""
    shown = f"[{host}]" if ":" in host else host
    more = f", {workers} workers" if workers > 1 else ""
    sys.stderr.write(f"postinit serve: listening on http://{shown}:{port} (API docs at /docs{more}; Ctrl+C stops)\n")
    sys.stderr.flush()


def _server_class() -> type:
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, announcing the address it actually bound (``--port 0`` picks one)."""

        async def startup(self, sockets: list[Any] | None = None) -> None:
            await super().startup(sockets)
            if self.started and self.servers:
                for sock in self.servers[0].sockets:
                    host, port = sock.getsockname()[:2]
                    _announce(str(host), int(port))
                    break

    return Server
