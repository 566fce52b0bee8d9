"""The FastAPI app: each endpoint validates its body, calls one library function and returns its ``to_dict()``.

The only thing this layer adds is refusal: it never lets a request name a file
on the server (models only by catalog id or inline ``hf_config``; no
``--config`` flag; no ``platform=auto``), and it bounds time and size.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, TypeVar

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from starlette.exceptions import HTTPException as StarletteHTTPException

import postinit
from postinit import graphs
from postinit._api import Resolution
from postinit.errors import InputError, NoFixedPoint, did_you_mean
from postinit.schema import VllmConfig
from postinit.schema.loaders import list_catalog, parse_vllm_args
from postinit.service._edge import Edge, Metrics, error_body
from postinit.service._models import (
    CatalogModel,
    DiffRequest,
    ErrorBody,
    Health,
    Inputs,
    ResolveResponse,
    RuleInfo,
    WhatIfRequest,
    WhyNotRequest,
    WhyRequest,
)

__all__ = ["Settings", "create_app"]

T = TypeVar("T")


class Settings(BaseModel):
    """Service settings; the defaults bind to loopback."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65535)
    workers: int = Field(1, ge=1)
    max_body_bytes: int = Field(1 << 20, ge=1, description="Larger request bodies get 413.")
    request_timeout_s: float = Field(10.0, gt=0, description="A resolution taking longer gets 504.")
    threads: int = Field(4, ge=1, description="Worker threads that run resolutions.")


class ServiceError(Exception):
    """An error answer with its status, kind and one-line message."""

    def __init__(self, status: int, kind: str, message: str, *, path: str | None = None,
                 rule: str | None = None) -> None:
        super().__init__(message)
        self.status, self.kind, self.message, self.path, self.rule = status, kind, message, path, rule


# --------------------------------------------------------------------------- refusing server paths


def _looks_like_path(name: str) -> bool:
    return (name.startswith(("/", ".", "~")) or any(c in name for c in ("\\", ":", "\x00"))
            or ".." in name or name.lower().endswith(".json"))


def _catalog_ids() -> dict[str, str]:
    return {e.id.lower(): e.id for e in list_catalog()}


def _refuse_server_paths(inp: Inputs, overrides: Mapping[str, Any] | None = None) -> None:
    """Refuse every input that would make the library read a file on the server (422)."""
    if inp.platform.strip().lower() == "auto":
        raise ServiceError(422, "invalid_input", "platform 'auto' would detect the server's hardware; "
                           "name a platform (cpu, rocm, cuda:9.0, h100, ...)", path="platform")
    names: list[tuple[str, Any]] = []
    if inp.model is not None:
        names.append(("model", inp.model))
    for arg in inp.argv or ():
        if arg == "--config" or arg.startswith("--config="):
            raise ServiceError(422, "invalid_input", "argv: --config reads a file on the server; "
                               "send the file's content as 'config' instead", path="argv")
    if inp.argv:
        names.append(("argv", parse_vllm_args(list(inp.argv)).model))
    mc = (inp.config or {}).get("model_config")
    if isinstance(mc, Mapping) and "model" in mc:
        names.append(("config.model_config.model", mc["model"]))
    for key, value in (overrides or {}).items():
        if key == "model_config.model":
            names.append(("set.model_config.model", value))
        elif key == "model_config" and isinstance(value, Mapping) and "model" in value:
            names.append(("set.model_config", value["model"]))
    inline = isinstance(mc, Mapping) and "hf_config" in mc
    ids = _catalog_ids() if names else {}
    for where, name in names:
        if name is None:
            continue
        if not isinstance(name, str):
            raise ServiceError(422, "invalid_input", f"{where}: a model must be a string (a catalog id), "
                               f"got {type(name).__name__}", path="model_config.model")
        if _looks_like_path(name):
            raise ServiceError(422, "invalid_input", f"{where}: '{name}' looks like a path; the service reads "
                               "no files: use a catalog id (GET /v1/models) or send config.json as "
                               "config.model_config.hf_config", path="model_config.model")
        if not inline and name.lower() not in ids:
            raise ServiceError(422, "invalid_input", f"{where}: model '{name}' is not in the built-in catalog."
                               f"{did_you_mean(name, ids.values())} Use GET /v1/models, or send its config.json "
                               "as config.model_config.hf_config", path="model_config.model")


def _kwargs(inp: Inputs) -> dict[str, Any]:
    return {"platform": inp.platform, "env": dict(inp.env), "model": inp.model,
            "argv": list(inp.argv) if inp.argv is not None else None, "usage": inp.usage,
            "semantics": inp.semantics, "catalog_only": True}


# --------------------------------------------------------------------------- the app


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the service: a FastAPI app over :mod:`postinit`, with its own metrics registry and threads."""
    settings = settings or Settings()
    book = postinit.rulebook()  # compile once, now: a broken rulebook fails at start, not per request
    metrics = Metrics()
    pool: list[ThreadPoolExecutor] = []  # created on first use, dropped at shutdown (an app may be started again)

    def executor() -> ThreadPoolExecutor:
        if not pool:
            pool.append(ThreadPoolExecutor(max_workers=settings.threads, thread_name_prefix="postinit-resolve"))
        return pool[0]

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        while pool:
            pool.pop().shutdown(wait=False, cancel_futures=True)

    app = FastAPI(
        title="postinit",
        version=postinit.__version__,
        description="vLLM's config resolution as declarative, explainable rules, over HTTP. "
        "Models are named by catalog id or sent inline; the service never reads server-side files.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.metrics = metrics
    app.add_middleware(Edge, metrics=metrics, max_body_bytes=settings.max_body_bytes)

    errors: dict[int | str, dict[str, Any]] = {
        422: {"model": ErrorBody, "description": "Invalid input; the message is the one the CLI prints."},
        413: {"model": ErrorBody, "description": "Request body over the limit."},
        500: {"model": ErrorBody, "description": "Internal error (generic message and request id)."},
        504: {"model": ErrorBody, "description": "The resolution took longer than the time limit."},
    }

    def rid(request: Request) -> str:
        return str(request.state.request_id)

    async def run(fn: Callable[[], T]) -> T:
        """Run ``fn`` in a worker thread with the time limit; library errors become answers."""
        future = asyncio.wrap_future(executor().submit(fn))
        try:
            return await asyncio.wait_for(future, timeout=settings.request_timeout_s)
        except TimeoutError:
            raise ServiceError(504, "timeout", f"the resolution took longer than {settings.request_timeout_s:g} s") from None

    def count(*resolutions: Resolution) -> None:
        for r in resolutions:
            metrics.resolutions.labels("ok" if r.ok else "violation").inc()
            for v in r.violations:
                metrics.violations.labels(v.rule).inc()

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError) -> JSONResponse:
        return JSONResponse(error_body(exc.kind, exc.message, rid(request), path=exc.path, rule=exc.rule),
                            status_code=exc.status)

    @app.exception_handler(graphs.RenderError)
    async def _render_error(request: Request, exc: graphs.RenderError) -> JSONResponse:
        return JSONResponse(error_body("not_implemented", exc.message, rid(request)), status_code=501)

    @app.exception_handler(InputError)
    async def _input_error(request: Request, exc: InputError) -> JSONResponse:
        return JSONResponse(error_body("invalid_input", exc.message, rid(request), path=exc.path, rule=exc.rule),
                            status_code=422)

    @app.exception_handler(NoFixedPoint)
    async def _no_fixed_point(request: Request, exc: NoFixedPoint) -> JSONResponse:
        return JSONResponse(error_body("no_fixed_point", exc.message, rid(request), path=exc.path, rule=exc.rule),
                            status_code=422)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for e in exc.errors()[:5]:
            loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
            parts.append(f"{loc or 'body'}: {e.get('msg', 'invalid')}")
        return JSONResponse(error_body("invalid_input", "; ".join(parts) or "invalid request", rid(request)),
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        kind = {404: "not_found", 405: "method_not_allowed", 400: "bad_request"}.get(exc.status_code, "http_error")
        return JSONResponse(error_body(kind, str(exc.detail), rid(request)), status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    # Any other error (a RuleError: the rulebook is broken) escapes to the Edge: a generic 500, logged there.

    # ----------------------------------------------------------------- resolution endpoints

    # The POST endpoints return the library's JSON-ready to_dict() as is (the response models
    # document it; re-validating a 40 kB trace per request would only cost time).
    @app.post("/v1/resolve", response_model=ResolveResponse, responses=errors, tags=["resolve"],
              summary="Resolve a config: the resolved config, changes, trace, violations and hash")
    async def resolve_endpoint(body: Inputs) -> JSONResponse:
        """A config that violates a rule is an answer: 200 with ``ok: false`` and the violations."""
        _refuse_server_paths(body)

        def work() -> dict[str, Any]:
            r = postinit.resolve(body.config, **_kwargs(body))
            count(r)
            return r.to_dict()

        return JSONResponse(await run(work))

    @app.post("/v1/why", responses=errors, tags=["explain"],
              summary="Why does a field have its value: the causal tree back to the inputs")
    async def why_endpoint(body: WhyRequest) -> JSONResponse:
        """``Resolution.why(path).to_dict()``."""
        _refuse_server_paths(body)

        def work() -> dict[str, Any]:
            r = postinit.resolve(body.config, **_kwargs(body))
            count(r)
            return r.why(body.path).to_dict()

        return JSONResponse(await run(work))

    @app.post("/v1/why-not", responses=errors, tags=["explain"],
              summary="Why does a field not have a value: the rules that could have set it and what stopped them")
    async def why_not_endpoint(body: WhyNotRequest) -> JSONResponse:
        """``Resolution.why_not(path, value).to_dict()``."""
        _refuse_server_paths(body)

        def work() -> dict[str, Any]:
            r = postinit.resolve(body.config, **_kwargs(body))
            count(r)
            return r.why_not(body.path, body.value).to_dict()

        return JSONResponse(await run(work))

    @app.post("/v1/what-if", responses=errors, tags=["explain"],
              summary="Resolve the inputs as given and with `set` on top, and diff the two")
    async def what_if_endpoint(body: WhatIfRequest) -> JSONResponse:
        """``postinit.what_if(...).to_dict()``."""
        _refuse_server_paths(body, body.set)

        def work() -> dict[str, Any]:
            w = postinit.what_if(body.config, set=body.set, **_kwargs(body))
            count(w.base, w.changed)
            return w.to_dict()

        return JSONResponse(await run(work))

    @app.post("/v1/diff", responses=errors, tags=["explain"],
              summary="Resolve two sets of inputs and compare the resolved configs")
    async def diff_endpoint(body: DiffRequest) -> JSONResponse:
        """``postinit.diff(resolve(a), resolve(b)).to_dict()``."""
        _refuse_server_paths(body.a)
        _refuse_server_paths(body.b)

        def work() -> dict[str, Any]:
            ra = postinit.resolve(body.a.config, **_kwargs(body.a))
            rb = postinit.resolve(body.b.config, **_kwargs(body.b))
            count(ra, rb)
            return postinit.diff(ra, rb, a_label="a", b_label="b").to_dict()

        return JSONResponse(await run(work))

    # ----------------------------------------------------------------- the rulebook

    not_found: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody, "description": "No such rule (with a did-you-mean)."}}

    @app.get("/v1/rules", response_model=list[RuleInfo], tags=["rules"], summary="Every rule's header, in phase order")
    async def rules_endpoint() -> list[dict[str, Any]]:
        """``rulebook().describe()``."""
        return book.describe()

    @app.get("/v1/rules/{rule_id}", response_model=RuleInfo, responses=not_found, tags=["rules"],
             summary="One rule's header")
    async def rule_endpoint(rule_id: str) -> dict[str, Any]:
        """404 names the closest rule id."""
        for info in book.describe():
            if info["id"] == rule_id:
                return info
        raise ServiceError(404, "not_found", f"unknown rule '{rule_id}'.{did_you_mean(rule_id, book.rules)}".rstrip("."))

    graph_types = {"dot": "text/vnd.graphviz", "mermaid": "text/plain", "svg": "image/svg+xml"}

    @app.get("/v1/graph", tags=["rules"], summary="The rule dependency graph as DOT, Mermaid or SVG",
             response_class=Response,
             responses={
                 200: {"content": {t: {"schema": {"type": "string"}, "example": ex}
                                   for t, ex in (("text/vnd.graphviz", "digraph rulebook { ... }"),
                                                 ("text/plain", "flowchart LR ..."),
                                                 ("image/svg+xml", "<svg ...>"))},
                       "description": "The picture."},
                 422: errors[422],
                 501: {"model": ErrorBody, "description": "SVG needs Graphviz's `dot` on the server."},
             })
    async def graph_endpoint(
        format: Literal["dot", "mermaid", "svg"] = Query("dot", description="dot, mermaid or svg"),
        phase: str | None = Query(None, max_length=64, description="Only this phase's rules."),
        around: str | None = Query(None, max_length=256, description="A rule id or a path and its neighbours."),
    ) -> Response:
        """SVG is rendered with Graphviz (501 when ``dot`` is missing)."""
        return Response(await run(lambda: picture(format, phase, around)), media_type=graph_types[format])

    @functools.lru_cache(maxsize=64)
    def picture(fmt: str, phase: str | None, around: str | None) -> str | bytes:
        """The rulebook is immutable, so each picture is drawn (and SVG rendered) once per app."""
        v = graphs.view(book, phase=phase, around=around)
        if fmt == "mermaid":
            return graphs.to_mermaid(v)
        dot = graphs.to_dot(v)
        return dot if fmt == "dot" else graphs.render(dot, "svg")

    config_schema = TypeAdapter(VllmConfig).json_schema()

    @app.get("/v1/schema", tags=["reference"], summary="JSON Schema of the nested config (`config` in request bodies)",
             responses={200: {"content": {"application/json": {"example": {"title": "VllmConfig", "type": "object"}}}}})
    async def schema_endpoint() -> dict[str, Any]:
        """``TypeAdapter(VllmConfig).json_schema()``."""
        return config_schema

    @app.get("/v1/models", response_model=list[CatalogModel], tags=["reference"], summary="The built-in model catalog")
    async def models_endpoint() -> list[dict[str, Any]]:
        """``list_catalog()``."""
        return [e.__dict__ for e in list_catalog()]

    @app.get("/healthz", response_model=Health, tags=["operations"], summary="Liveness")
    async def healthz() -> dict[str, Any]:
        """The service is up and its rulebook compiled."""
        return {"status": "ok", "version": postinit.__version__, "rules": len(book)}

    @app.get("/metrics", tags=["operations"], summary="Prometheus metrics", response_class=Response,
             responses={200: {"content": {"text/plain": {"schema": {"type": "string"},
                                                         "example": "postinit_http_requests_total{...} 1.0"}},
                              "description": "Prometheus text format."}})
    async def metrics_endpoint() -> Response:
        """Requests by endpoint/status, latency, resolutions and violations by rule."""
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    return app

