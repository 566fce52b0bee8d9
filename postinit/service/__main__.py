"""``python -m postinit.service [--host 127.0.0.1] [--port 8000] [--workers N]``."""

from __future__ import annotations

import argparse

from postinit.service import serve


def main(argv: list[str] | None = None) -> None:
    """Parse the few serve options and run the service."""
    p = argparse.ArgumentParser(prog="python -m postinit.service", description="Run the postinit HTTP service.")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--workers", type=int, default=1)
    a = p.parse_args(argv)
    serve(a.host, a.port, a.workers)


if __name__ == "__main__":
    main()
