"""The ``postinit`` command line: resolve a vLLM config offline and explain every decision.

Built with Typer (rich help, rich output). Every command that resolves takes
the same inputs as ``vllm serve``: unknown options and extra arguments are
vLLM flags and are passed through verbatim. Exit codes: 0 resolved, 1 the
config is invalid (a violation), 2 bad input (one ``error:`` line on stderr),
3 a broken rulebook.
"""

# No ``from __future__ import annotations``: Typer reads every command's annotations at start-up,
# and evaluating ~100 string annotations costs ~10 ms of each run.
import enum
import gc
import io
import json
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
import typer.core
from pydantic import TypeAdapter, ValidationError

import postinit
from postinit import render
from postinit._api import DEFAULT_MODEL, DEFAULT_PLATFORM, Request, Resolution, resolve_request
from postinit.errors import InputError, InvalidValueError, PostinitError, show
from postinit.rules import paths, rulebook
from postinit.rules.versions import DEFAULT_VERSION, listed
from postinit.schema import Platform
from postinit.schema.loaders import list_catalog, read_config_file
from postinit.schema.loaders.argv import as_argv
from postinit.schema.platform import PLATFORM_PRESETS

if TYPE_CHECKING:
    from rich.console import Console
# structlog, yaml, rich, audit and graphs are imported where they are used: they cost start-up time

__all__ = ["app", "main"]

PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True}
_STATE = {"debug": False}


class Fmt(enum.StrEnum):
    text = "text"
    json = "json"
    yaml = "yaml"
    md = "md"


class ResolveFmt(enum.StrEnum):
    text = "text"
    json = "json"
    yaml = "yaml"
    md = "md"
    html = "html"


class TextJsonFmt(enum.StrEnum):
    text = "text"
    json = "json"


class GraphFmt(enum.StrEnum):
    dot = "dot"
    mermaid = "mermaid"
    svg = "svg"
    png = "png"


class UsageOpt(enum.StrEnum):
    serve = "serve"
    llm = "llm"
    engine = "engine"
    api_server = "api_server"
    batch = "batch"
    unknown = "unknown"
    none = "none"


class SemanticsOpt(enum.StrEnum):
    vllm = "vllm"
    consistent = "consistent"


class LogLevel(enum.StrEnum):
    debug = "debug"
    info = "info"
    warning = "warning"
    error = "error"


class LogFormat(enum.StrEnum):
    console = "console"
    json = "json"


try:  # typer vendors click (typer._click); older typer used click itself
    from typer._click import exceptions as _click_errors
except ImportError:  # pragma: no cover
    from click import exceptions as _click_errors  # type: ignore[no-redef]


class _OneLineErrors(typer.core.TyperGroup):
    """Typer's own usage errors (a missing argument, a bad ``--format``) as one ``error:`` line, exit 2.

    Typer draws them in a box under the usage text; every other bad input is one line, and so are these.
    ``postinit`` alone still prints the help (and exits 2).
    """

    def main(self, args: "Sequence[str] | None" = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, windows_expand_args: bool = True,
             **extra: Any) -> Any:
        try:
            rv = super().main(args=args, prog_name=prog_name, complete_var=complete_var, standalone_mode=False,
                              windows_expand_args=windows_expand_args, **extra)
        except _click_errors.NoArgsIsHelpError as e:
            if not standalone_mode:
                raise
            typer.echo(e.ctx.get_help() if e.ctx is not None else "", err=False)
            sys.exit(2)
        except _click_errors.UsageError as e:
            if not standalone_mode:
                raise
            where = e.ctx.command_path if e.ctx is not None else "postinit"
            text = " ".join(e.format_message().split()).replace("Value error, ", "").rstrip(".")
            typer.echo(f"error: {text[:1].lower() + text[1:]} (see {where} --help)", err=True)
            sys.exit(2)
        except typer.Abort:
            if not standalone_mode:
                raise
            typer.echo("error: aborted", err=True)
            sys.exit(1)
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


app = typer.Typer(
    name="postinit",
    cls=_OneLineErrors,
    help=(
        "See [bold]why[/] your vLLM config ends up the way it does — offline, with the flags you pass "
        "to [cyan]vllm serve[/].\n\n"
        f"Try [cyan]postinit resolve[/] ({DEFAULT_MODEL} on {DEFAULT_PLATFORM}), then "
        "[cyan]postinit why compilation_config.cudagraph_mode --enforce-eager[/]."
    ),
    rich_markup_mode="rich",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# ---------------------------------------------------------------------------- options

ConfigOpt = Annotated[Path | None, typer.Option(
    "--config", help="A JSON/YAML config: nested VllmConfig shape, or vLLM's flag-style --config YAML.",
    show_default=False, rich_help_panel="Inputs")]
ModelOpt = Annotated[str | None, typer.Option(
    "--model", help="A catalog model id (see [cyan]postinit models[/]) or a directory with config.json.",
    show_default=False, rich_help_panel="Inputs")]
PlatformOpt = Annotated[str, typer.Option(
    "--platform", help="cpu, rocm, cuda:MAJOR.MINOR, a GPU name (h100, b200, mi300x, …) or auto.",
    rich_help_panel="Inputs")]
EnvOpt = Annotated[list[str] | None, typer.Option(
    "--env", help="A VLLM_* variable as NAME=VALUE (repeatable); the process environment is never read.",
    show_default=False, rich_help_panel="Inputs")]
UsageOptT = Annotated[UsageOpt | None, typer.Option(
    "--usage", help="Build the config as [cyan]vllm serve[/] (serve) or [cyan]LLM(...)[/] (llm) does, or an engine "
    "from EngineArgs (engine: ENGINE_CONTEXT; api_server, batch, unknown: vLLM's other usage contexts; none: "
    "create_engine_config() without one). "
    "Default: serve when flags are given.", show_default=False, rich_help_panel="Inputs")]
SemanticsOptT = Annotated[SemanticsOpt, typer.Option(
    "--semantics", help="vllm: vLLM's exact statement order; consistent: re-run stale rules to a fixed point.",
    rich_help_panel="Inputs")]
FmtOpt = Annotated[Fmt, typer.Option("--format", help="Output format.")]
RulesOpt = Annotated[list[str] | None, typer.Option(
    "--rules", metavar="FILE.py|MODULE", help="Your own rules (site policies) to resolve with vLLM's: a .py file or "
    "a module name (repeatable); see docs/writing-rules.md.", show_default=False, rich_help_panel="Inputs")]
VersionOpt = Annotated[str, typer.Option(
    "--vllm-version", help=f"The vLLM version to model: {listed()} (see [cyan]postinit versions[/]).",
    rich_help_panel="Inputs")]


def _console(width: int | None = None) -> tuple["Console", io.StringIO]:
    """A console writing into a buffer, so an error never leaves partial output on stdout."""
    from rich.console import Console

    buf = io.StringIO()
    tty = sys.stdout.isatty()
    cols = shutil.get_terminal_size((120, 24)).columns if tty else 120
    return Console(file=buf, force_terminal=tty, width=width or cols, highlight=False, soft_wrap=False), buf


def _fail(message: str, code: int = 2) -> NoReturn:
    first = message.strip().splitlines()[0] if message.strip() else "unknown error"
    typer.echo(f"error: {first}", err=True)
    raise typer.Exit(code)


def _guard(fn: Callable[[], int]) -> None:
    """Run a command body: input errors → one line and exit 2, rulebook errors → exit 3."""
    try:
        code = fn()
    except InputError as e:
        _fail(e.for_face("cli"), 2)
    except PostinitError as e:
        whose = "a problem in your --rules" if "site rule" in e.message else "a rulebook problem"
        _fail(f"{e.for_face('cli')} (this is {whose}, not your input)", 3)
    except Exception as e:
        if _STATE["debug"]:
            raise
        _fail(f"internal error: {type(e).__name__}: {e} (a postinit bug; --log-level debug shows the traceback)", 3)
    if code:
        raise typer.Exit(code)


def _out(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()


def _emit(fmt: Fmt, data: Callable[[], Any], text: Callable[["Console"], None], md: Callable[[], str]) -> None:
    if fmt is Fmt.json:
        _out(render.dump_json(data()))
    elif fmt is Fmt.yaml:
        _out(render.dump_yaml(data()))
    elif fmt is Fmt.md:
        _out(md())
    else:
        console, buf = _console()
        text(console)
        _out("\n".join(line.rstrip() for line in buf.getvalue().splitlines()))


def _env(items: list[str] | None) -> dict[str, str | None]:
    env: dict[str, str | None] = {}
    for item in items or ():
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise InvalidValueError(f"--env {show(item)}: expected NAME=VALUE (e.g. --env VLLM_USE_V1=1)", value=item)
        env[name.strip()] = value
    return env


_SWITCH_VALUES = frozenset({"true", "false", "yes", "no", "on", "off", "1", "0"})


def _inputs(
    extra: list[str], config: Path | None, model: str | None, platform: str, env: list[str] | None,
    usage: UsageOpt | None, semantics: SemanticsOpt, vllm_version: str = DEFAULT_VERSION,
) -> Request:
    """The :class:`~postinit.Request` of one set of CLI inputs (what the library and HTTP build too).

    A nested config file is the request's ``config``; a flag-shaped one (vLLM's ``--config``
    YAML) stays a ``--config FILE`` flag, which the flag parser expands as vLLM does (the file's
    flags first, the command line wins).
    """
    argv = list(extra)
    if argv and argv[0].lower() in _SWITCH_VALUES and not _exists(argv[0]):
        raise InvalidValueError(
            f"{show(argv[0])} is not a model: postinit's switches (--full, --verbose, ...) take no value; "
            "write the switch alone (e.g. --full)", value=argv[0])
    if argv and any(ch.isspace() for ch in argv[0]) and not _exists(argv[0]):
        argv[:1] = as_argv(argv[0], "the pasted command line")  # a whole line pasted in quotes
    nested: dict[str, Any] | None = None
    sources: dict[str, str] = {}
    if config is not None:
        loaded = read_config_file(config)
        if loaded.nested is not None:
            nested = loaded.nested
            sources = {p: s for p in loaded.lines if (s := loaded.source(p)) is not None}
        else:
            argv += ["--config", str(config)]
    return Request.build(
        nested, model=model, argv=argv, platform=platform, env=_env(env), semantics=semantics.value,
        usage=usage.value if usage else None, vllm_version=vllm_version, sources=sources,
    )


def _exists(path: str) -> bool:
    try:
        return Path(path).exists()
    except (OSError, ValueError):
        return False


def _depth(text: str | None) -> int | None:
    """``--depth N``: a whole number of levels, 0 to 200."""
    if text is None:
        return None
    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= 200:
        raise InvalidValueError(f"--depth {show(text)}: a number of levels from 0 to 200", value=text)
    return n


def _resolve(request: Request, **more: Any) -> Resolution:
    return resolve_request(request, **more)


def _site(specs: list[str] | None) -> Any:
    """The site rules of ``--rules`` options (loaded once per process per file version)."""
    from postinit.site import load

    return load(list(specs or ()))


def _parse_value(path: str, text: str) -> Any:
    """A command-line value for ``path``: YAML scalars/lists, then the field's own type if it accepts it."""
    info = paths().require(path)
    if text in ("None", "null", "~"):
        raw: Any = None
    else:
        import yaml

        try:
            raw = yaml.safe_load(text)
        except (yaml.YAMLError, ValueError):  # ValueError: an integer over Python's 4,300 digits
            raw = text
    try:
        return TypeAdapter(info.annotation).validate_python(raw)
    except (ValidationError, TypeError, ValueError):
        pass
    try:
        return TypeAdapter(info.annotation).validate_python(text)
    except (ValidationError, TypeError, ValueError):
        return raw


# ---------------------------------------------------------------------------- callback


@app.callback(invoke_without_command=True)
def _main(
    ctx: typer.Context,
    log_level: Annotated[LogLevel | None, typer.Option(
        "--log-level", help="Log the engine's events (rule_fired, rule_violation, stale_read) to stderr.",
        show_default=False)] = None,
    log_format: Annotated[LogFormat, typer.Option("--log-format", help="Log line format.")] = LogFormat.console,
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    """Explain vLLM's config resolution."""
    if version:
        typer.echo(f"postinit {postinit.__version__}")
        raise typer.Exit(0)
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        _fail("missing command: try `postinit resolve` (the commands are listed above)")
    _configure_logging(log_level, log_format)


def _configure_logging(level: LogLevel | None, fmt: LogFormat) -> None:
    """structlog is configured here only; without --log-level the engine stays quiet."""
    loaded = sys.modules.get("structlog")
    if loaded is not None:  # never imported: nothing configured it, nothing to reset
        loaded.reset_defaults()
    _STATE["debug"] = level is LogLevel.debug
    if level is None:
        return
    import logging

    import structlog

    renderer: Any = (structlog.processors.JSONRenderer() if fmt is LogFormat.json
                     else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty()))
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.value.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


# ---------------------------------------------------------------------------- resolve


@app.command(context_settings=PASS_THROUGH, epilog=(
    "Examples:\n\n"
    "  postinit resolve\n\n"
    "  postinit resolve meta-llama/Llama-3.1-8B-Instruct --platform b200 --max-model-len 200k\n\n"
    "  postinit resolve --model deepseek-ai/DeepSeek-V3 -tp 8 --enable-dbo --format json\n\n"
    "  postinit resolve --config my.yaml --platform a100 --env VLLM_USE_V1=1 --full\n\n"
    "  postinit resolve deepseek-ai/DeepSeek-V3 -tp 8 --format html > report.html"
))
def resolve(
    ctx: typer.Context,
    config: ConfigOpt = None,
    model: ModelOpt = None,
    platform: PlatformOpt = DEFAULT_PLATFORM,
    env: EnvOpt = None,
    usage: UsageOptT = None,
    semantics: SemanticsOptT = SemanticsOpt.vllm,
    vllm_version: VersionOpt = DEFAULT_VERSION,
    site_rules: RulesOpt = None,
    full: Annotated[bool, typer.Option(
        "--full", help="Every change with its rule and reason, every record vLLM logs, and the whole resolved "
        "config (the default answer fits one screen).")] = False,
    fmt: Annotated[ResolveFmt, typer.Option(
        "--format", help="Output format; html is a self-contained audit report (redirect it to a file).")]
    = ResolveFmt.text,
) -> None:
    """Resolve a config as vLLM would and show what changed from your input, and why.

    Anything after the known options is a [cyan]vllm serve[/] flag (a positional model too).
    With no arguments it resolves the default model on the default platform.
    """

    def run() -> int:
        r = _resolve(_inputs(ctx.args, config, model, platform, env, usage, semantics, vllm_version),
                     rules=_site(site_rules))
        if fmt is ResolveFmt.html:
            from postinit.report import html_report

            _out(html_report(r))
        else:
            _emit(Fmt(fmt.value), r.to_dict, lambda c: render.text_resolution(c, r, full=full),
                  lambda: render.md_resolution(r, full=full))
        return 0 if r.ok else 1

    _guard(run)


@app.command(context_settings=PASS_THROUGH, epilog=(
    "Examples:\n\n"
    "  postinit why compilation_config.cudagraph_mode --enforce-eager\n\n"
    "  postinit why compilation_config.cudagraph_mode --model meta-llama/Llama-3.1-8B-Instruct "
    "--platform b200 --max-model-len 200k"
))
def why(
    ctx: typer.Context,
    path: Annotated[str, typer.Argument(help="A dotted field path, e.g. compilation_config.cudagraph_mode.")],
    config: ConfigOpt = None,
    model: ModelOpt = None,
    platform: PlatformOpt = DEFAULT_PLATFORM,
    env: EnvOpt = None,
    usage: UsageOptT = None,
    semantics: SemanticsOptT = SemanticsOpt.vllm,
    vllm_version: VersionOpt = DEFAULT_VERSION,
    site_rules: RulesOpt = None,
    verbose: Annotated[bool, typer.Option(
        "--verbose", help="Show every value each rule consulted (defaults too) and every message.")] = False,
    depth: Annotated[str | None, typer.Option(
        "--depth", metavar="N", help="Cut the tree N levels below PATH (0-200; default 12).",
        show_default=False)] = None,
    fmt: FmtOpt = Fmt.text,
) -> None:
    """Why does PATH have its value? What each deciding rule consulted, back to your flags, config.json and facts."""

    def run() -> int:
        paths().require(path)
        levels = _depth(depth)
        r = _resolve(_inputs(ctx.args, config, model, platform, env, usage, semantics, vllm_version),
                     rules=_site(site_rules))
        node = r.why(path, verbose=verbose, depth=levels)

        def text(c: "Console") -> None:
            render.text_why(c, node)
            render.text_stopped(c, r)

        _emit(fmt, node.to_dict, text, lambda: render.md_why(node))
        return 0 if r.ok else 1

    _guard(run)


@app.command("why-not", context_settings=PASS_THROUGH, epilog=(
    "Examples:\n\n"
    "  postinit why-not compilation_config.cudagraph_mode FULL_AND_PIECEWISE --enforce-eager\n\n"
    "  postinit why-not scheduler_config.enable_chunked_prefill true --model Qwen/Qwen3-8B"
))
def why_not(
    ctx: typer.Context,
    path: Annotated[str, typer.Argument(help="A dotted field path.")],
    value: Annotated[str, typer.Argument(help="The value you expected (enum names, numbers, true/false, None).")],
    config: ConfigOpt = None,
    model: ModelOpt = None,
    platform: PlatformOpt = DEFAULT_PLATFORM,
    env: EnvOpt = None,
    usage: UsageOptT = None,
    semantics: SemanticsOptT = SemanticsOpt.vllm,
    vllm_version: VersionOpt = DEFAULT_VERSION,
    site_rules: RulesOpt = None,
    fmt: FmtOpt = Fmt.text,
) -> None:
    """Why is PATH not VALUE? Every rule that could have set it and what stopped it."""

    def run() -> int:
        target = _parse_value(path, value)
        r = _resolve(_inputs(ctx.args, config, model, platform, env, usage, semantics, vllm_version),
                     rules=_site(site_rules))
        w = r.why_not(path, target)
        _emit(fmt, w.to_dict, lambda c: render.text_why_not(c, w), lambda: render.md_why_not(w))
        return 0

    _guard(run)


@app.command(context_settings=PASS_THROUGH, epilog=(
    "Examples:\n\n"
    "  postinit how scheduler_config.enable_chunked_prefill false --vllm-version 0.11.1\n\n"
    "  postinit how compilation_config.cudagraph_mode FULL deepseek-ai/DeepSeek-V3 -tp 8 -dcp 2\n\n"
    "  postinit how scheduler_config.disable_hybrid_kv_cache_manager false Qwen/Qwen3-Next-80B-A3B-Instruct "
    "-tp 4 --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'"
))
def how(
    ctx: typer.Context,
    path: Annotated[str, typer.Argument(help="A dotted field path.")],
    value: Annotated[str, typer.Argument(help="The value you want (enum names, numbers, true/false, None).")],
    config: ConfigOpt = None,
    model: ModelOpt = None,
    platform: PlatformOpt = DEFAULT_PLATFORM,
    env: EnvOpt = None,
    usage: UsageOptT = None,
    semantics: SemanticsOptT = SemanticsOpt.vllm,
    vllm_version: VersionOpt = DEFAULT_VERSION,
    site_rules: RulesOpt = None,
    max_edits: Annotated[str, typer.Option(
        "--max-edits", metavar="N", help="Search edits of up to N of your inputs (1-3).")] = "2",
    keep: Annotated[list[str] | None, typer.Option(
        "--keep", metavar="PATH", help="A field an answer must leave as it is (repeatable), e.g. "
        "parallel_config.decode_context_parallel_size.", show_default=False)] = None,
    verbose: Annotated[bool, typer.Option(
        "--verbose", help="Also print how many candidate resolutions were tried.")] = False,
    fmt: Annotated[TextJsonFmt, typer.Option("--format", help="Output format.")] = TextJsonFmt.text,
) -> None:
    """How do I get PATH = VALUE? The smallest verified edits of your flags and variables, as command lines.

    Each answer is resolved to check it: the field gets the value and vLLM accepts the config.
    Fewest edits first, then fewest side effects; another platform is listed apart.
    """

    def run() -> int:
        from postinit._how import MAX_EDITS

        try:
            edits = int(max_edits)
        except ValueError:
            edits = -1
        if not 1 <= edits <= MAX_EDITS:
            raise InvalidValueError(f"--max-edits {show(max_edits)}: a number of edits from 1 to {MAX_EDITS}",
                                    value=max_edits)
        request = _inputs(ctx.args, config, model, platform, env, usage, semantics, vllm_version)
        r = _resolve(request, record=True, rules=_site(site_rules))
        answer = r.how(path, value, max_edits=edits, keep=tuple(keep or ()))
        if fmt is TextJsonFmt.json:
            _out(render.dump_json(answer.to_dict()))
        else:
            _out(answer.text(verbose=verbose))
        return 0 if answer.reachable else 1

    _guard(run)


@app.command("what-if", context_settings=PASS_THROUGH, epilog=(
    "Examples:\n\n"
    "  postinit what-if --set model_config.enforce_eager=true\n\n"
    "  postinit what-if --model deepseek-ai/DeepSeek-V3 -tp 8 --set parallel_config.enable_dbo=true"
))
def what_if(
    ctx: typer.Context,
    set_: Annotated[list[str], typer.Option(
        "--set", help="PATH=VALUE to change (repeatable); wins over the config and the flags.")],
    config: ConfigOpt = None,
    model: ModelOpt = None,
    platform: PlatformOpt = DEFAULT_PLATFORM,
    env: EnvOpt = None,
    usage: UsageOptT = None,
    semantics: SemanticsOptT = SemanticsOpt.vllm,
    vllm_version: VersionOpt = DEFAULT_VERSION,
    site_rules: RulesOpt = None,
    fmt: FmtOpt = Fmt.text,
) -> None:
    """Resolve the inputs as given and with --set changes; show what differs and which rules started or stopped."""

    def run() -> int:
        from postinit import audit

        changes: dict[str, Any] = {}
        for item in set_:
            p, eq, v = item.partition("=")
            if not eq:
                raise InvalidValueError(f"--set {show(item)}: expected PATH=VALUE", value=item)
            p = p.strip()
            changes[p] = v if p.startswith("env.") else _parse_value(p, v)
        w = audit.what_if(_inputs(ctx.args, config, model, platform, env, usage, semantics, vllm_version),
                          set=changes, rules=_site(site_rules))
        _emit(fmt, w.to_dict, lambda c: render.text_what_if(c, w), lambda: render.md_diff(w.diff))
        return 0

    _guard(run)


def _side(
    spec: str, model: str | None, platform: str, env: list[str] | None, usage: UsageOpt | None,
    semantics: SemanticsOpt, vllm_version: str = DEFAULT_VERSION,
) -> tuple[Request, str]:
    """One side of ``diff``: a config file, or a quoted flag string, with the common inputs."""
    looks_like_file = spec.endswith((".json", ".yaml", ".yml")) and not spec.lstrip().startswith("-")
    try:
        is_file = bool(spec) and Path(spec).is_file()
    except (OSError, ValueError):
        is_file = False
    if looks_like_file or is_file:
        return _inputs([], Path(spec), model, platform, env, usage, semantics, vllm_version), spec
    return (_inputs(as_argv(spec, "flags"), None, model, platform, env, usage, semantics, vllm_version),
            spec or "(no flags)")


@app.command(context_settings={"ignore_unknown_options": True}, epilog=(
    "Examples:\n\n"
    "  postinit diff \"\" \"--enforce-eager\"\n\n"
    "  postinit diff \"-tp 2\" \"-tp 2 --enable-dbo\" --model deepseek-ai/DeepSeek-V3 --platform h200\n\n"
    "  postinit diff a.yaml b.yaml --platform b200"
))
def diff(
    a: Annotated[str, typer.Argument(help="A config file, or a quoted flag string like \"--enforce-eager -tp 2\".")],
    b: Annotated[str, typer.Argument(help="The other side, same kinds.")],
    model: ModelOpt = None,
    platform: PlatformOpt = DEFAULT_PLATFORM,
    env: EnvOpt = None,
    usage: UsageOptT = None,
    semantics: SemanticsOptT = SemanticsOpt.vllm,
    vllm_version: VersionOpt = DEFAULT_VERSION,
    site_rules: RulesOpt = None,
    fmt: FmtOpt = Fmt.text,
) -> None:
    """Resolve two inputs on the same platform and show how the resolved configs differ."""

    def run() -> int:
        from postinit import audit

        ra, la = _side(a, model, platform, env, usage, semantics, vllm_version)
        rb, lb = _side(b, model, platform, env, usage, semantics, vllm_version)
        d = audit.diff(ra, rb, a_label=la, b_label=lb, rules=_site(site_rules))
        _emit(fmt, d.to_dict, lambda c: render.text_diff(c, d), lambda: render.md_diff(d))
        return 0

    _guard(run)


@app.command(context_settings=PASS_THROUGH, epilog=(
    "Examples:\n\n"
    "  postinit upgrade --to 0.11.1 meta-llama/Llama-3.1-8B-Instruct --no-enable-chunked-prefill\n\n"
    "  postinit upgrade --from d7fb10c57 --to 0.11.1 --model deepseek-ai/DeepSeek-V3 -tp 8 --format json\n\n"
    "  postinit upgrade --to 0.11.1 --config serve.yaml --platform cpu"
))
def upgrade(
    ctx: typer.Context,
    to_version: Annotated[str, typer.Option("--to", help="The vLLM version you upgrade to (e.g. 0.11.1).")],
    from_version: Annotated[str, typer.Option(
        "--from", help="The vLLM version you run today.")] = DEFAULT_VERSION,
    config: ConfigOpt = None,
    model: ModelOpt = None,
    platform: PlatformOpt = DEFAULT_PLATFORM,
    env: EnvOpt = None,
    usage: UsageOptT = None,
    semantics: SemanticsOptT = SemanticsOpt.vllm,
    site_rules: RulesOpt = None,
    fmt: FmtOpt = Fmt.text,
) -> None:
    """Resolve the same input on two vLLM versions and show every decision that changes, with the rule and reason on each side."""

    def run() -> int:
        from postinit._upgrade import upgrade as upgrading
        from postinit.rules.versions import version_name

        u = upgrading(_inputs(ctx.args, config, model, platform, env, usage, semantics),
                      from_version=version_name(from_version, "--from"), to_version=version_name(to_version, "--to"),
                      rules=_site(site_rules))
        _emit(fmt, u.to_dict, lambda c: c.print(u), lambda: _md_upgrade(u))
        return 0

    _guard(run)


def _md_upgrade(u: Any) -> str:
    lines = [f"## Upgrade vLLM {u.from_version} → {u.to_version}", "",
             f"{len(u.changes)} decision(s) change; {u.from_version}: {u.before_outcome}, "
             f"{u.to_version}: {u.after_outcome}.", "",
             f"| field | {u.from_version} | by | {u.to_version} | by |", "|---|---|---|---|---|"]
    for c in u.changes:
        lines.append(f"| `{c.path}` | `{render.show(c.before.value)}` | {c.before.by} | "
                     f"`{render.show(c.after.value)}` | {c.after.by} |")
    return "\n".join(lines) + "\n"


@app.command(epilog="Example:\n\n  postinit versions --format json")
def versions(
    fmt: FmtOpt = Fmt.text,
    full: Annotated[bool, typer.Option(
        "--full", help="Every cell in full (the whole status and the real vLLM each version was checked against), "
        "instead of one line per version.")] = False,
) -> None:
    """The vLLM versions postinit models, each with the real vLLM it was checked against and its delta."""

    def run() -> int:
        from postinit._upgrade import versions as listing

        found = listing()
        rows = [{"version": v.name + (" (default)" if v.default else ""), "parent": v.parent or "—",
                 "rules": v.rules, "delta": f"+{v.added} ~{v.replaced} *{v.patched} -{v.dropped}" if v.parent else "—",
                 "status": v.status or "complete", "checked against": v.oracle} for v in found]
        cols = ["version", "parent", "rules", "delta", "status", "checked against"]
        title = "modelled vLLM versions (delta: rules added ~replaced *patched -dropped)"
        _emit(fmt, lambda: {"versions": [v.to_dict() for v in found]},
              lambda c: render.text_table(c, rows, cols, title=title, whole=("version",)) if full
              else render.text_table(c, rows, cols[:-1], title=title, whole=("version",), one_line=True),
              lambda: render.md_table(rows, cols))
        return 0

    _guard(run)


# ---------------------------------------------------------------------------- the rulebook


_RULE_COLUMNS = ["id", "phase", "kind", "reads", "writes", "source"]
_RULE_LINE = ["id", "phase", "kind", "title"]


@app.command(epilog=(
    "Examples:\n\n"
    "  postinit rules --phase core\n\n"
    "  postinit rules --touching compilation_config.cudagraph_mode --format json"
))
def rules(
    phase: Annotated[str | None, typer.Option("--phase", help="Only this phase.", show_default=False)] = None,
    touching: Annotated[str | None, typer.Option(
        "--touching", help="Only rules that read or write this path.", show_default=False)] = None,
    vllm_version: VersionOpt = DEFAULT_VERSION,
    full: Annotated[bool, typer.Option(
        "--full", help="Every column in full (reads, writes, source), instead of one line per rule.")] = False,
    fmt: FmtOpt = Fmt.text,
) -> None:
    """The rulebook, one line per rule: id, phase, kind, title ([cyan]--full[/]: reads, writes, source)."""

    def run() -> int:
        from postinit import audit

        book = rulebook(vllm_version)
        if phase is not None and phase not in book.phases:
            raise InvalidValueError(f"--phase {show(phase)}: phases are {', '.join(book.phases)}", value=phase)
        if touching is not None:
            paths().require(touching)
        rows = [
            d for d in book.describe()
            if (phase is None or d["phase"] == phase)
            and (touching is None or touching in d["reads"] or touching in d["writes"])
        ]
        title = f"{len(rows)} of {len(book)} rules"
        _emit(fmt, lambda: {"version": audit.AUDIT_VERSION, "rules": rows},
              lambda c: render.text_table(c, rows, _RULE_COLUMNS, title=title, wrap=("reads",)) if full
              else render.text_table(c, rows, _RULE_LINE, title=title, whole=("id",), one_line=True),
              lambda: render.md_table(rows, _RULE_COLUMNS))
        return 0

    _guard(run)


@app.command(epilog=(
    "Examples:\n\n"
    "  postinit graph --format svg --output map.svg\n\n"
    "  postinit graph --phase core --format mermaid\n\n"
    "  postinit graph --around compilation_config.cudagraph_mode --format png --output cg.png\n\n"
    "  postinit graph --around cudagraph.eager-disables --format svg > rule.svg"
))
def graph(
    fmt: Annotated[GraphFmt, typer.Option("--format", help="dot and mermaid are text; svg/png need Graphviz.")]
    = GraphFmt.dot,
    phase: Annotated[str | None, typer.Option("--phase", help="Only this phase.", show_default=False)] = None,
    around: Annotated[str | None, typer.Option(
        "--around", help="A rule id (it and its neighbours) or a field path (its writers and readers).",
        show_default=False)] = None,
    output: Annotated[Path | None, typer.Option(
        "--output", help="Write to this file instead of stdout.", show_default=False)] = None,
    full: Annotated[bool, typer.Option(
        "--full", help="Every rule and every dependency (large: a PNG takes ~25 s), instead of the overview.")]
    = False,
    vllm_version: VersionOpt = DEFAULT_VERSION,
) -> None:
    """The rulebook as a map: phases and config areas, with the fields that flow between them.

    With --full, --phase or --around: the rules themselves, clustered by phase, edges labelled by the paths they carry.
    """

    def run() -> int:
        from postinit import graphs

        book = rulebook(vllm_version)
        if not full and phase is None and around is None:
            ov = graphs.overview(book)
            text = graphs.overview_mermaid(ov) if fmt is GraphFmt.mermaid else graphs.overview_dot(ov)
            v = None
        else:
            v = graphs.view(book, phase=phase, around=around)
            text = (graphs.to_mermaid(v) if fmt is GraphFmt.mermaid
                    else graphs.to_dot(v, name=f"postinit {around or phase or 'rulebook'}"))
        if fmt in (GraphFmt.mermaid, GraphFmt.dot):
            data: bytes = text.encode()
        else:
            size = f"{sum(len(m) for m in v.phases.values())} rules" if v is not None else "the overview"
            data = _with_progress(f"rendering {size} with Graphviz dot", lambda: graphs.render(text, fmt.value))
        if output is not None:
            try:
                output.write_bytes(data)
            except OSError as e:
                raise InputError(f"cannot write {output}: {e.strerror or e}", value=str(output)) from None
            typer.echo(f"wrote {output} ({len(data)} bytes)", err=True)
        elif fmt is GraphFmt.png and sys.stdout.isatty():
            raise InputError("--format png writes binary data; add --output FILE or redirect stdout")
        else:
            sys.stdout.flush()
            sys.stdout.buffer.write(data) if hasattr(sys.stdout, "buffer") else sys.stdout.write(data.decode())
            sys.stdout.flush()
        return 0

    _guard(run)


def _with_progress(what: str, work: Callable[[], bytes], after: float = 1.0) -> bytes:
    """Run ``work``; when it takes more than ``after`` seconds, say so on stderr until it ends."""
    import threading
    import time

    box: list[bytes] = []
    failed: list[BaseException] = []

    def target() -> None:
        try:
            box.append(work())
        except BaseException as e:  # re-raised in the caller's thread
            failed.append(e)

    worker = threading.Thread(target=target, daemon=True)
    start = time.monotonic()
    worker.start()
    worker.join(after)
    if worker.is_alive():
        from rich.console import Console

        err = Console(stderr=True)
        if err.is_terminal:
            with err.status(f"{what}…") as status:
                while worker.is_alive():
                    worker.join(0.2)
                    status.update(f"{what}… {time.monotonic() - start:.0f} s")
        else:
            typer.echo(f"{what}…", err=True)
            worker.join()
        typer.echo(f"{what}: done in {time.monotonic() - start:.1f} s", err=True)
    if failed:
        raise failed[0]
    return box[0]


@app.command(epilog="Example:\n\n  postinit check --format md")
def check(fmt: FmtOpt = Fmt.text, vllm_version: VersionOpt = DEFAULT_VERSION) -> None:
    """Static analysis of the rulebook: compile errors, platform facts no preset satisfies, a per-phase summary."""

    def run() -> int:
        from postinit import audit

        report = audit.check(vllm_version=vllm_version)
        _emit(fmt, report.to_dict, lambda c: render.text_check(c, report), lambda: render.md_check(report))
        return 0 if report.ok else 1

    _guard(run)


@app.command(epilog="Example:\n\n  postinit schema > vllm-config.schema.json")
def schema(vllm_version: VersionOpt = DEFAULT_VERSION) -> None:
    """The JSON Schema of the input config (VllmConfig's nested shape), without the fields the version lacks."""

    def run() -> int:
        from postinit._upgrade import json_schema

        _out(json.dumps(json_schema(vllm_version), indent=2))
        return 0

    _guard(run)


@app.command(epilog="Example:\n\n  postinit models --format md")
def models(
    full: Annotated[bool, typer.Option("--full", help="Every cell in full, instead of one line per model.")] = False,
    fmt: FmtOpt = Fmt.text,
) -> None:
    """The built-in model catalog, one line per model (config.json facts; postinit never downloads)."""

    def run() -> int:
        from postinit import audit

        rows = [
            {"id": e.id, "architecture": e.architecture, "model_type": e.model_type,
             "max_position_embeddings": e.max_position_embeddings, "note": e.note}
            for e in list_catalog()
        ]
        cols = ["id", "architecture", "model_type", "max_position_embeddings", "note"]
        _emit(fmt, lambda: {"version": audit.AUDIT_VERSION, "models": rows},
              lambda c: render.text_table(c, rows, cols, title=f"{len(rows)} models", whole=("id",)) if full
              else render.text_table(c, [{**r, "context": r["max_position_embeddings"]} for r in rows],
                                     ["id", "architecture", "context", "note"], title=f"{len(rows)} models",
                                     whole=("id",), one_line=True),
              lambda: render.md_table(rows, cols))
        return 0

    _guard(run)


@app.command(epilog="Example:\n\n  postinit platforms --format json")
def platforms(fmt: FmtOpt = Fmt.text) -> None:
    """The platform presets --platform accepts (plus cuda:MAJOR.MINOR, rocm:gfxNNN and auto)."""

    def run() -> int:
        from postinit import audit

        rows = []
        for name in PLATFORM_PRESETS:
            if name == "auto":
                continue
            p = Platform.from_spec(name)
            rows.append({"spec": name, "kind": p.kind, "capability": p.capability, "device_name": p.device_name,
                         "memory_gb": p.total_memory_gb})
        cols = ["spec", "kind", "capability", "device_name", "memory_gb"]
        _emit(fmt, lambda: {"version": audit.AUDIT_VERSION, "platforms": rows},
              lambda c: render.text_table(c, rows, cols, title="platform presets (also: auto, cuda:X.Y, rocm:gfxNNN)"),
              lambda: render.md_table(rows, cols))
        return 0

    _guard(run)


# ---------------------------------------------------------------------------- sweep (issue #7)


class SweepFmt(enum.StrEnum):
    text = "text"
    json = "json"


@app.command(epilog=(
    "Examples:\n\n  postinit sweep --exhaustive --platform h100 --jobs 2\n\n"
    "  postinit sweep --random 500 --seed 7 --format json\n\n"
    "  postinit sweep --random 200 --scheduler local"
))
def sweep(
    exhaustive: Annotated[bool, typer.Option("--exhaustive", help="Every interaction group in full plus a pairwise covering (default).")] = False,
    random_n: Annotated[int | None, typer.Option("--random", help="N seeded random inputs instead.", show_default=False)] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the random draws and of the pairwise covering.")] = 0,
    platform: Annotated[list[str] | None, typer.Option("--platform", help="Platform spec(s) to sweep (repeatable); default: t4 a100 l40s h100 b200 b300 mi300x cpu.", show_default=False)] = None,
    jobs: Annotated[int, typer.Option("--jobs", help="Worker processes (the report is identical for any number).")] = 1,
    scheduler: Annotated[str | None, typer.Option("--scheduler", help="Run on dask distributed: tcp://host:port, or 'local' for a LocalCluster.", show_default=False)] = None,
    chunk_size: Annotated[int, typer.Option("--chunk-size", help="Inputs per task.")] = 64,
    fmt: Annotated[SweepFmt, typer.Option("--format", help="Output format.")] = SweepFmt.text,
    site_rules: Annotated[list[str] | None, typer.Option(
        "--rules", metavar="FILE.py|MODULE", help="Your own rules swept with vLLM's (repeatable): the report adds "
        "how often each ran and fired, and which of yours x vLLM's touching one path fired together.",
        show_default=False)] = None,
) -> None:
    """Explore the decision-relevant input space through every rulebook invariant; report violations and rule coverage."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from postinit import sweep as sweeping

    def run() -> int:
        if exhaustive and random_n is not None:
            _fail("--exhaustive and --random are exclusive")
        mode: Any = "random" if random_n is not None else "exhaustive"
        from rich.console import Console

        err = Console(stderr=True)
        with Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err, transient=True, disable=not err.is_terminal) as bar:
            task = bar.add_task("sweep", total=None)

            def tick(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            report = sweeping.sweep(mode, n=random_n or 0, seed=seed, platforms=platform, jobs=jobs,
                                    scheduler=scheduler, chunk_size=chunk_size, progress=tick,
                                    rules=tuple(site_rules or ()))
        if fmt is SweepFmt.json:
            _out(json.dumps(report.to_dict(), indent=2, sort_keys=True))
        else:
            console, buf = _console()
            sweeping.print_report(report, console)
            _out(buf.getvalue())
        return 0 if report.ok and not report.site_never_fired else 1

    _guard(run)



# --------------------------------------------------------------------------- serve (#9, service engineer)


@app.command(epilog="Examples:\n\n  postinit serve\n\n  postinit serve --port 8080 --workers 2")
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to bind; the default is loopback only.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port.")] = 8000,
    workers: Annotated[int, typer.Option("--workers", min=1, help="uvicorn worker processes.")] = 1,
    site_rules: Annotated[list[str] | None, typer.Option(
        "--rules", metavar="FILE.py|MODULE", help="Site policies resolved with vLLM's rules for every request "
        "(repeatable); loaded now, never named by a request.", show_default=False)] = None,
) -> None:
    """Run the HTTP service (needs postinit\\[serve]); OpenAPI at /openapi.json, docs at /docs."""
    if not 0 <= port <= 65535:
        _fail(f"--port {port}: a TCP port is 0-65535")
    try:
        from postinit.service import serve as run_service
    except ImportError as e:
        _fail(f"postinit serve needs the serve extra: pip install 'postinit[serve]' ({e.name} is missing)")
    if site_rules:
        from postinit.site import site_rulebook

        _guard(lambda: (site_rulebook(DEFAULT_VERSION, _site(site_rules)), 0)[1])  # a bad file, a conflict: one line
    run_service(host, port, workers, rules=tuple(site_rules or ()))

def main() -> None:
    """Console-script entry point."""
    try:
        app()
    finally:
        # The process ends here. Freezing moves every live object out of the cyclic collector's
        # reach, so the interpreter's shutdown does not traverse them all (~35 ms of a
        # ``postinit resolve``; reference counting still frees what it frees).
        gc.freeze()


if __name__ == "__main__":  # pragma: no cover
    main()
