"""The FastAPI app: each endpoint parses its body, calls one library function and returns its ``to_dict()``.

The POST endpoints take the bytes of the body and do everything else in a worker
thread — JSON parsing (no NaN, no Infinity, no numbers that overflow a float),
validation into the same :class:`~postinit.Request` the library and the CLI build,
the resolution, and the JSON rendering — so the event loop only moves bytes.
The resolution runs with ``allow_files=False``: models by catalog id (matched
exactly, or case-insensitively normalised to the catalog's id) or inline
``config_json``, no ``--config`` flag, no ``platform="auto"``; the service reads
no file. Cost is bounded by the limits every request is checked against
(:mod:`postinit.schema.limits`, the vLLM-derived bounds on capture sizes and
speculative tokens), by the body limit, by a bounded number of requests in
flight (503 beyond it) and by the response size limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import math
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from enum import Enum
from typing import Annotated, Any, Literal, TypeVar

import orjson
import structlog
from fastapi import FastAPI, Query
from fastapi import Request as HTTPRequest
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

import postinit
from postinit import _api, graphs
from postinit._api import Resolution
from postinit.engine import Rulebook
from postinit.errors import InputError, InvalidValueError, NoFixedPoint, did_you_mean, show
from postinit.rules.versions import DEFAULT_VERSION, listed, version_name
from postinit.schema.loaders import list_catalog
from postinit.service._edge import Edge, Metrics, error_body
from postinit.service._models import (
    CatalogModel,
    DiffRequest,
    ErrorBody,
    Health,
    HowRequest,
    ResolveRequest,
    ResolveResponse,
    RuleInfo,
    UpgradeRequest,
    VersionInfoModel,
    WhatIfRequest,
    WhyNotRequest,
    WhyRequest,
)

__all__ = ["Settings", "create_app"]

_log = structlog.get_logger("postinit.service")

T = TypeVar("T")


class Settings(BaseModel):
    """Service settings; the defaults bind to loopback."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    host: str = "127.0.0.1"
    port: int = Field(8000, ge=0, le=65535)
    workers: int = Field(1, ge=1)
    max_body_bytes: int = Field(1 << 20, ge=1, description="Larger request bodies get 413.")
    max_response_bytes: int = Field(16 << 20, ge=1, description="A larger answer is refused with 422.")
    request_timeout_s: float = Field(10.0, gt=0, description="A resolution taking longer gets 504.")
    body_timeout_s: float = Field(10.0, gt=0, description="A request body not complete within this gets 408.")
    threads: int = Field(1, ge=1, description="Worker threads that run resolutions (one per process: the work holds the GIL, and more threads only contend for it).")
    max_in_flight: int = Field(64, ge=1, description="Requests being worked on or waiting; more get 503.")
    rules: tuple[str, ...] = Field((), description="Site policy modules or .py files, loaded at start and resolved "
                                   "with vLLM's rules for every request (never named by a request).")


class ServiceError(Exception):
    """An error answer with its status, kind and one-line message."""

    def __init__(self, status: int, kind: str, message: str, *, path: str | None = None,
                 rule: str | None = None) -> None:
        super().__init__(message)
        self.status, self.kind, self.message, self.path, self.rule = status, kind, message, path, rule


# --------------------------------------------------------------------------- bodies


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InvalidValueError(f"body: the number {text[:40]} does not fit a 64-bit float", path="body")
    return value


def _not_json(name: str) -> Any:
    raise InvalidValueError(f"body: {name} is not JSON (RFC 8259 has no NaN or Infinity)", path="body")


def parse_body(raw: bytes) -> Any:
    """A request body as JSON: strict (no NaN/Infinity, finite numbers, UTF-8), one-line errors."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidValueError(f"body: not UTF-8 (byte {e.start})", path="body") from None
    if not text.strip():
        raise InvalidValueError("body: empty; send a JSON object", path="body")
    try:
        data = json.loads(text, parse_constant=_not_json, parse_float=_finite)
    except json.JSONDecodeError as e:
        raise InvalidValueError(f"body: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}",
                                path="body") from None
    except RecursionError:
        raise InvalidValueError("body: JSON nested too deeply", path="body") from None
    except ValueError as e:  # an integer of more than 4300 digits
        raise InvalidValueError(f"body: {e}"[:200], path="body") from None
    if not isinstance(data, dict):
        raise InvalidValueError(f"body: a JSON object is expected, got {type(data).__name__}", path="body")
    return data


def json_media_type(request: HTTPRequest) -> None:
    """A body declared as anything but JSON (a form, ``text/plain``) is a 415; no declaration is taken as JSON."""
    declared = request.headers.get("content-type")
    if declared is None:
        return
    media = declared.split(";", 1)[0].strip().lower()
    if media == "application/json" or (media.startswith("application/") and media.endswith("+json")):
        return
    raise ServiceError(415, "unsupported_media_type",
                       f"the body is declared as {show(media, 60)}; send JSON with Content-Type: application/json")


def render_json(payload: Any, limit: int) -> bytes:
    """The JSON bytes of an answer (strict JSON, UTF-8, by orjson), refused when larger than ``limit``."""
    try:
        data = orjson.dumps(payload)
    except (TypeError, orjson.JSONEncodeError):  # NaN/Infinity are null in orjson; anything else odd: stdlib's error
        data = json.dumps(payload, allow_nan=False, separators=(",", ":")).encode("ascii")
    if len(data) > limit:
        raise ServiceError(422, "response_too_large",
                           f"the answer is {len(data)} bytes, over the service's limit of {limit}")
    return data


@functools.cache
def _docs_asset(name: str) -> bytes:
    """Swagger UI's and ReDoc's files, shipped by the ``fastapi-offline`` package (the ``serve`` extra)."""
    from importlib.resources import files

    try:
        return (files("fastapi_offline") / "static" / name).read_bytes()
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        raise ServiceError(501, "not_implemented", "the /docs assets need the fastapi-offline package: "
                                                   "pip install 'postinit[serve]'") from None


# --------------------------------------------------------------------------- the app


def _described(book: Rulebook) -> list[dict[str, Any]]:
    """``book.describe()``, each site rule marked with its ``owner``."""
    rows = book.describe()
    for row in rows:
        owner = book.rules[row["id"]].owner
        if owner:
            row["owner"] = owner
    return rows


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the service: a FastAPI app over :mod:`postinit`, with its own metrics registry and threads."""
    settings = settings or Settings()
    from postinit.site import load, site_rulebook

    site = load(list(settings.rules))  # the site's rules: named at start, never by a request
    book = site_rulebook(DEFAULT_VERSION, site)  # compile once, now: a broken rulebook fails at start, not per request
    catalog = [e.__dict__ for e in list_catalog()]  # read once
    versions_json = [v.to_dict() for v in postinit.versions()]  # compiles every version's rulebook, now
    rules_json = orjson.dumps(_described(book))
    metrics = Metrics()
    pool: list[ThreadPoolExecutor] = []  # created on first use, dropped at shutdown (an app may be started again)
    in_flight = [0]

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
        "Models are named by catalog id or sent inline (config_json); the service never reads server-side files.",
        lifespan=lifespan,
        docs_url=None,  # served below with local assets: the page works offline
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.metrics = metrics
    app.add_middleware(Edge, metrics=metrics, max_body_bytes=settings.max_body_bytes,
                       body_timeout_s=settings.body_timeout_s)

    errors: dict[int | str, dict[str, Any]] = {
        422: {"model": ErrorBody, "description": "Invalid input; the message is the one the CLI prints."},
        408: {"model": ErrorBody, "description": "The request body did not arrive within the time limit."},
        413: {"model": ErrorBody, "description": "Request body over the limit."},
        415: {"model": ErrorBody, "description": "A body that is not declared as JSON (form, text/plain, ...)."},
        500: {"model": ErrorBody, "description": "Internal error (generic message and request id)."},
        503: {"model": ErrorBody, "description": "Too many requests in flight; retry."},
        504: {"model": ErrorBody, "description": "The resolution took longer than the time limit."},
    }

    def rid(request: HTTPRequest) -> str:
        return str(request.state.request_id)

    async def run(fn: Callable[[], T]) -> T:
        """Run ``fn`` in a worker thread with the time limit; library errors become answers."""
        if in_flight[0] >= settings.max_in_flight:
            raise ServiceError(503, "busy", f"{in_flight[0]} requests in flight; retry shortly")
        in_flight[0] += 1
        try:
            future = asyncio.wrap_future(executor().submit(fn))
            try:
                return await asyncio.wait_for(future, timeout=settings.request_timeout_s)
            except TimeoutError:
                raise ServiceError(504, "timeout",
                                   f"the resolution took longer than {settings.request_timeout_s:g} s") from None
        finally:
            in_flight[0] -= 1

    def count(*resolutions: Resolution) -> None:
        for r in resolutions:
            metrics.resolutions.labels("ok" if r.ok else "violation").inc()
            for v in r.violations:
                metrics.violations.labels(v.rule).inc()
                # a violation is the answer to the request, not a server error: info, like the access log
                _log.info("rule_violation", rule=v.rule, error=v.error, message=v.message)

    @app.exception_handler(ServiceError)
    async def _service_error(request: HTTPRequest, exc: ServiceError) -> JSONResponse:
        headers = {"Retry-After": "1"} if exc.status == 503 else None
        return JSONResponse(error_body(exc.kind, exc.message, rid(request), path=exc.path, rule=exc.rule),
                            status_code=exc.status, headers=headers)

    @app.exception_handler(graphs.RenderError)
    async def _render_error(request: HTTPRequest, exc: graphs.RenderError) -> JSONResponse:
        return JSONResponse(error_body("not_implemented", exc.message, rid(request)), status_code=501)

    @app.exception_handler(InputError)
    async def _input_error(request: HTTPRequest, exc: InputError) -> JSONResponse:
        return JSONResponse(error_body("invalid_input", exc.for_face("http"), rid(request), path=exc.path,
                                       rule=exc.rule, stage=exc.stage), status_code=422)

    @app.exception_handler(NoFixedPoint)
    async def _no_fixed_point(request: HTTPRequest, exc: NoFixedPoint) -> JSONResponse:
        return JSONResponse(error_body("no_fixed_point", exc.message, rid(request), path=exc.path, rule=exc.rule),
                            status_code=422)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: HTTPRequest, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for e in exc.errors()[:5]:
            loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
            parts.append(f"{loc or 'body'}: {e.get('msg', 'invalid')}")
        return JSONResponse(error_body("invalid_input", "; ".join(parts) or "invalid request", rid(request)),
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: HTTPRequest, exc: StarletteHTTPException) -> JSONResponse:
        kind = {404: "not_found", 405: "method_not_allowed", 400: "bad_request"}.get(exc.status_code, "http_error")
        status = 422 if exc.status_code == 400 else exc.status_code  # a body that does not parse is invalid input
        return JSONResponse(error_body("invalid_input" if status == 422 else kind, str(exc.detail), rid(request)),
                            status_code=status, headers=getattr(exc, "headers", None))

    # Any other error (a RuleError: the rulebook is broken) escapes to the Edge: a generic 500, logged there.

    # ----------------------------------------------------------------- resolution endpoints

    bodies: dict[str, type[BaseModel]] = {}

    def post(path: str, body: type[BaseModel], answer: Callable[[Any], Any], *, summary: str,
             tags: list[str | Enum],
             doc: str, response_model: type[BaseModel] | None = None) -> None:
        """A POST endpoint: the body is parsed into ``body`` and answered by ``answer`` in a worker thread."""
        bodies[body.__name__] = body
        parse = getattr(body, "parse")  # noqa: B009 - every body model has a one-line-error parse()

        def work(raw: bytes) -> bytes:
            return render_json(answer(parse(parse_body(raw))), settings.max_response_bytes)

        async def endpoint(request: HTTPRequest) -> Response:
            json_media_type(request)
            raw = await request.body()
            return Response(await run(lambda: work(raw)), media_type="application/json")

        endpoint.__doc__ = doc
        app.post(
            path, response_model=response_model, responses=errors, tags=tags, summary=summary,
            openapi_extra={"requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{body.__name__}"}}},
            }},
        )(endpoint)

    def resolved(body: ResolveRequest) -> Resolution:
        r = _api.resolve_request(body.plain(), allow_files=False, trace=body.trace, rules=site)
        count(r)
        return r

    def answer_what_if(body: WhatIfRequest) -> dict[str, Any]:
        w = postinit.what_if(body.plain(), set=body.set, catalog_only=True, rules=site)
        count(w.base, w.changed)
        return w.to_dict()

    def answer_how(body: HowRequest) -> dict[str, Any]:
        r = _api.resolve_request(body.plain(), allow_files=False, record=True, rules=site)
        count(r)
        return r.how(body.path, body.value, max_edits=body.max_edits, keep=tuple(body.keep)).to_dict()

    def answer_upgrade(body: UpgradeRequest) -> dict[str, Any]:
        from postinit._upgrade import Refused, upgrade

        plain = body.plain()
        u = upgrade(plain, from_version=body.from_version, to_version=body.to_version, catalog_only=True,
                    trace=body.trace, rules=site)
        count(*(r for r in (u.before, u.after) if not isinstance(r, Refused)))  # a parser's refusal resolved nothing
        return u.to_dict()

    def answer_diff(body: DiffRequest) -> dict[str, Any]:
        ra, rb = resolved(body.a), resolved(body.b)
        return postinit.diff(ra, rb, a_label="a", b_label="b").to_dict()

    post("/v1/resolve", ResolveRequest, lambda b: resolved(b).to_dict(), response_model=ResolveResponse,
         tags=["resolve"], summary="Resolve a config: the resolved config, changes, trace, violations and hash",
         doc="A config that violates a rule is an answer: 200 with ``ok: false`` and the violations.")
    post("/v1/why", WhyRequest, lambda b: resolved(b).why(b.path, verbose=b.verbose, depth=b.depth).to_dict(),
         tags=["explain"], summary="Why does a field have its value: the causal tree back to the inputs",
         doc="``Resolution.why(path, verbose=, depth=).to_dict()``: under each decision the values the rule "
             "consulted; defaults that decided nothing fold into `defaults` unless `verbose`.")
    post("/v1/why-not", WhyNotRequest, lambda b: resolved(b).why_not(b.path, b.value).to_dict(), tags=["explain"],
         summary="Why does a field not have a value: the rules that could have set it and what stopped them",
         doc="``Resolution.why_not(path, value).to_dict()``.")
    post("/v1/how", HowRequest, answer_how, tags=["explain"],
         summary="How do I get a value: the smallest verified edits of the inputs that give it",
         doc="``Resolution.how(path, value, max_edits=, keep=).to_dict()``: edits of the flags and variables "
             "(``platforms``: another platform, apart), fewest edits first, each one resolved to check it; "
             "or, when none works, the rules that block the value.")
    post("/v1/what-if", WhatIfRequest, answer_what_if, tags=["explain"],
         summary="Resolve the inputs as given and with `set` on top, and diff the two",
         doc="``postinit.what_if(...).to_dict()``.")
    post("/v1/upgrade", UpgradeRequest, answer_upgrade, tags=["versions"],
         summary="Resolve the inputs on two vLLM versions (`from`, `to`) and show the decisions that change",
         doc="``postinit.upgrade(..., from_version=, to_version=).to_dict()``: every field whose value changes, "
             "with the rule (or input) that decided it on each side, its reason and log line, and how the rule "
             "itself differs between the versions.")
    post("/v1/diff", DiffRequest, answer_diff, tags=["explain"],
         summary="Resolve two sets of inputs and compare the resolved configs",
         doc="``postinit.diff(a, b).to_dict()``.")

    # ----------------------------------------------------------------- the audit report (HTML)

    html_ok: dict[int | str, dict[str, Any]] = {
        200: {"content": {"text/html": {"schema": {"type": "string"}, "example": "<!DOCTYPE html>..."}},
              "description": "One self-contained HTML page (no script, no external resource)."},
        **errors,
    }

    def report(body: _api.Request) -> bytes:
        from postinit.report import html_report

        r = _api.resolve_request(body.plain(), allow_files=False, rules=site)
        count(r)
        data = html_report(r).encode("utf-8")
        if len(data) > settings.max_response_bytes:
            raise ServiceError(422, "response_too_large",
                               f"the report is {len(data)} bytes, over the service's limit of {settings.max_response_bytes}")
        return data

    bodies[ResolveRequest.__name__] = ResolveRequest

    async def report_post(request: HTTPRequest) -> Response:
        json_media_type(request)
        raw = await request.body()
        data = await run(lambda: report(ResolveRequest.parse(parse_body(raw))))
        return Response(data, media_type="text/html; charset=utf-8")

    report_post.__doc__ = "The audit report of the resolution the body asks for (the body of `/v1/resolve`)."
    app.post("/v1/report", response_class=Response, responses=html_ok, tags=["explain"],
             summary="An audit report of a resolution: one self-contained HTML page",
             openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
                 "schema": {"$ref": f"#/components/schemas/{ResolveRequest.__name__}"}}}}})(report_post)

    @app.get("/v1/report", response_class=Response, responses=html_ok, tags=["explain"],
             summary="An audit report of a resolution, from query parameters (a link to share)")
    async def report_get(
        model: str | None = Query(None, max_length=512, description="A catalog model id."),
        platform: str | None = Query(None, max_length=64, description="h100, b200, cpu, cuda:9.0, ..."),
        argv: Annotated[list[str] | None, Query(
            max_length=1024, description="`vllm serve` flags: one string (`argv=-tp 4`, split as a shell "
            "splits it) or one parameter per argument (`argv=-tp&argv=4`).")] = None,
        env: Annotated[list[str] | None, Query(max_length=256, description="NAME=VALUE (repeatable).")] = None,
        usage: Literal["serve", "llm"] | None = Query(None, description="serve or llm."),
        semantics: Literal["vllm", "consistent"] | None = Query(None, description="vllm or consistent."),
        vllm_version: str | None = Query(None, max_length=64, description=f"The vLLM version: {listed()}."),
    ) -> Response:
        """The same page as `POST /v1/report`; the query names the inputs."""
        data: dict[str, Any] = {k: v for k, v in (("model", model), ("platform", platform), ("usage", usage),
                                                  ("semantics", semantics), ("vllm_version", vllm_version))
                                if v is not None}
        if argv:
            data["argv"] = argv[0] if len(argv) == 1 else argv
        for item in env or ():
            name, eq, value = item.partition("=")
            if not eq or not name:
                raise InvalidValueError(f"env {item[:80]!r}: expected NAME=VALUE", path="env", value=item[:80])
            data.setdefault("env", {})[name] = value
        page = await run(lambda: report(ResolveRequest.parse(data)))
        return Response(page, media_type="text/html; charset=utf-8")

    def openapi() -> dict[str, Any]:
        """FastAPI's document, plus the schemas of the bodies the POST endpoints parse themselves."""
        if app.openapi_schema is None:
            doc = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            schemas = doc.setdefault("components", {}).setdefault("schemas", {})
            for name, model in bodies.items():
                found = model.model_json_schema(ref_template="#/components/schemas/{model}")
                schemas.update(found.pop("$defs", {}))
                schemas[name] = found
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    # ----------------------------------------------------------------- /docs and /redoc, offline

    @app.get("/docs", include_in_schema=False)
    async def docs_page() -> Response:
        return get_swagger_ui_html(
            openapi_url="/openapi.json", title=f"{app.title} — API",
            swagger_js_url="/docs/assets/swagger-ui-bundle.js", swagger_css_url="/docs/assets/swagger-ui.css",
            swagger_favicon_url="/docs/assets/favicon.png",
            swagger_ui_parameters={"validatorUrl": None},  # no badge fetched from swagger.io
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc_page() -> Response:
        return get_redoc_html(openapi_url="/openapi.json", title=f"{app.title} — API",
                              redoc_js_url="/docs/assets/redoc.standalone.js",
                              redoc_favicon_url="/docs/assets/favicon.png", with_google_fonts=False)

    asset_types = {"swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css",
                   "redoc.standalone.js": "text/javascript", "favicon.png": "image/png"}

    @app.get("/docs/assets/{name}", include_in_schema=False)
    async def docs_asset(name: str) -> Response:
        if name not in asset_types:
            raise ServiceError(404, "not_found", f"no asset {name[:80]!r}")
        return Response(_docs_asset(name), media_type=asset_types[name],
                        headers={"Cache-Control": "public, max-age=86400"})

    # ----------------------------------------------------------------- the rulebook

    not_found: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody, "description": "No such rule (with a did-you-mean)."}}

    version_query = Query(DEFAULT_VERSION, max_length=64, description="The vLLM version (GET /v1/versions).")

    @functools.lru_cache(maxsize=8)
    def rules_of(version: str) -> bytes:
        """Each version's rulebook is immutable: its table is rendered once."""
        return rules_json if version == DEFAULT_VERSION else orjson.dumps(_described(site_rulebook(version, site)))

    @app.get("/v1/rules", response_model=list[RuleInfo], tags=["rules"], summary="Every rule's header, in phase order")
    async def rules_endpoint(vllm_version: str = version_query) -> Response:
        """``rulebook(vllm_version).describe()`` (the rulebook is immutable: rendered once)."""
        return Response(rules_of(version_name(vllm_version)), media_type="application/json")

    @app.get("/v1/rules/{rule_id}", response_model=RuleInfo, responses=not_found, tags=["rules"],
             summary="One rule's header", response_model_exclude_unset=True)
    async def rule_endpoint(rule_id: str, vllm_version: str = version_query) -> dict[str, Any]:
        """404 names the closest rule id."""
        versioned = site_rulebook(version_name(vllm_version), site)
        for info in _described(versioned):
            if info["id"] == rule_id:
                return info
        raise ServiceError(404, "not_found",
                           f"unknown rule '{rule_id}'.{did_you_mean(rule_id, versioned.rules)}".rstrip("."))

    @app.get("/v1/versions", response_model=list[VersionInfoModel], tags=["versions"],
             summary="The vLLM versions postinit models, each with the real vLLM it was checked against")
    async def versions_endpoint() -> list[dict[str, Any]]:
        """``postinit.versions()``: name, parent, title, the oracle, rule count and the delta's size."""
        return versions_json

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
        full: bool = Query(False, description="Every rule instead of the overview (phases and config areas)."),
        vllm_version: str = version_query,
    ) -> Response:
        """Without phase, around or full: the overview. SVG is rendered with Graphviz (501 when ``dot`` is missing)."""
        version = version_name(vllm_version)
        return Response(await run(lambda: picture(format, phase, around, full, version)),
                        media_type=graph_types[format])

    @functools.lru_cache(maxsize=64)
    def picture(fmt: str, phase: str | None, around: str | None, full: bool = False,
                version: str = DEFAULT_VERSION) -> str | bytes:
        """The rulebook is immutable, so each picture is drawn (and SVG rendered) once per app."""
        book = postinit.rulebook(version)
        if not full and phase is None and around is None:
            ov = graphs.overview(book)
            if fmt == "mermaid":
                return graphs.overview_mermaid(ov)
            text = graphs.overview_dot(ov)
            return text if fmt == "dot" else graphs.render(text, "svg")
        v = graphs.view(book, phase=phase, around=around)
        if fmt == "mermaid":
            return graphs.to_mermaid(v)
        dot = graphs.to_dot(v)
        return dot if fmt == "dot" else graphs.render(dot, "svg")

    @functools.lru_cache(maxsize=8)
    def config_schema(version: str) -> dict[str, Any]:
        from postinit._upgrade import json_schema

        return json_schema(version)

    @app.get("/v1/schema", tags=["reference"], summary="JSON Schema of the nested config (`config` in request bodies)",
             responses={200: {"content": {"application/json": {"example": {"title": "VllmConfig", "type": "object"}}}}})
    async def schema_endpoint(vllm_version: str = version_query) -> dict[str, Any]:
        """``TypeAdapter(VllmConfig).json_schema()`` without the fields ``vllm_version`` does not have."""
        return config_schema(version_name(vllm_version))

    @app.get("/v1/models", response_model=list[CatalogModel], tags=["reference"], summary="The built-in model catalog")
    async def models_endpoint() -> list[dict[str, Any]]:
        """``list_catalog()``."""
        return catalog

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

