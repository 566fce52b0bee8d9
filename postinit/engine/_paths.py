"""The flat view of a typed config: dotted paths to frozen plain values.

`PathSpace` walks pydantic models (``BaseModel`` subclasses and pydantic
dataclasses alike) once and answers: which paths exist, what their defaults
and field metadata are, and how to turn an object into a flat ``dict`` and
back. Rules and the resolver only ever see the flat dict.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

from pydantic import BaseModel, TypeAdapter
from pydantic.fields import FieldInfo

from postinit.engine._builder import compile_builder
from postinit.errors import UnknownFieldError, did_you_mean

__all__ = ["FrozenDict", "PathInfo", "PathSpace", "freeze", "thaw"]


class FrozenDict(dict[str, Any]):
    """A read-only ``dict``: rules cannot mutate a value they were handed.

    It stays a ``dict`` so that it serialises to JSON and compares equal to a
    plain dict with the same items.
    """

    __slots__ = ()

    def _readonly(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("postinit values are read-only; return a new value from the rule instead")

    __setitem__ = __delitem__ = _readonly
    clear = pop = popitem = setdefault = update = _readonly

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted((k, _hashable(v)) for k, v in self.items())))

    def __ior__(self, other: Any) -> NoReturn:  # type: ignore[misc]
        self._readonly()

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


_ATOMIC = frozenset({type(None), str, int, float, bool})


def freeze(value: Any) -> Any:
    """Return an immutable equivalent of ``value`` (lists → tuples, dicts → FrozenDict)."""
    t = type(value)
    if t in _ATOMIC or t is FrozenDict:
        return value
    if t is tuple and _ATOMIC.issuperset(map(type, value)):
        return value  # already frozen all the way down (the common case: sizes, op lists)
    if t is list and _ATOMIC.issuperset(map(type, value)):
        return tuple(value)
    if value is None or isinstance(value, (str, int, float, bool, enum.Enum, tuple, FrozenDict)):
        if isinstance(value, tuple):
            return tuple(freeze(v) for v in value)
        return value
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    if isinstance(value, Mapping):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (set, frozenset)):
        return frozenset(freeze(v) for v in value)
    if isinstance(value, BaseModel):
        return FrozenDict({k: freeze(v) for k, v in dict(value).items()})
    return value


_KEEP: dict[type, bool] = {}
"""Per exact type: True when :func:`thaw` returns its values unchanged (not a tuple, dict or frozenset)."""


def _keeps(t: type) -> bool:
    keep = _KEEP.get(t)
    if keep is None:
        keep = _KEEP[t] = not issubclass(t, (tuple, dict, frozenset))
    return keep


_FROZEN: dict[type, bool] = {}
"""Per exact type: True when :func:`freeze` returns its values unchanged (scalars, enums, FrozenDict)."""


def _frozen_type(t: type) -> bool:
    keep = _FROZEN.get(t)
    if keep is None:
        keep = _FROZEN[t] = t is FrozenDict or (
            issubclass(t, (str, int, float, bool, enum.Enum, FrozenDict, type(None))) and not issubclass(t, tuple)
        )
    return keep


_PLAIN: dict[int, tuple[Any, ...]] = {}
"""Long tuples of plain scalars already checked, by identity (a resolved state shares them between resolutions:
a 513-entry padding table is checked once, not at every thaw). Holds them, so an id stays theirs."""


def scalar_tuple(value: tuple[Any, ...], allowed: frozenset[type], seen: dict[int, tuple[Any, ...]]) -> bool:
    """A tuple whose items' exact types are all ``allowed``; a long one is remembered in ``seen`` by identity (a
    bounded cache that holds the tuples, so an id stays theirs)."""
    if not allowed.issuperset(map(type, value)):
        return False
    if len(value) > 32:
        if len(seen) >= 1024:
            seen.clear()
        seen[id(value)] = value
    return True


def _plain_tuple(value: tuple[Any, ...]) -> bool:
    """A tuple of plain scalars (thawed to a list of the same values)."""
    return scalar_tuple(value, _ATOMIC, _PLAIN)


def thaw(value: Any) -> Any:
    """Undo :func:`freeze`: tuples → lists, FrozenDict → dict (recursively)."""
    t = type(value)
    if _KEEP.get(t) or (t not in _KEEP and _keeps(t)):
        return value
    if t is tuple and (_PLAIN.get(id(value)) is value or _plain_tuple(value)):
        return list(value)
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, frozenset):
        return sorted((thaw(v) for v in value), key=repr)
    return value


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and (
        issubclass(tp, BaseModel) or (dataclasses.is_dataclass(tp) and hasattr(tp, "__pydantic_fields__"))
    )


def _model_of(annotation: Any) -> tuple[type | None, bool]:
    """Return (model class, optional?) when ``annotation`` is a model or ``Model | None``."""
    if _is_model(annotation):
        return annotation, False
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1 and _is_model(args[0]) and len(typing.get_args(annotation)) == 2:
            return args[0], True
    return None, False


def _fields(cls: type) -> dict[str, FieldInfo]:
    fields: dict[str, FieldInfo] = cls.__pydantic_fields__  # type: ignore[attr-defined]
    return fields


def _default(info: FieldInfo) -> Any:
    if info.is_required():
        return None
    return info.get_default(call_default_factory=True)


@dataclass(frozen=True, slots=True)
class PathInfo:
    """What the schema says about one path."""

    path: str
    annotation: Any
    default: Any
    extra: Mapping[str, Any]
    presence: bool = False
    """True for the presence path of an optional sub-model (value ``True`` or ``None``)."""
    under: str | None = None
    """The nearest enclosing optional sub-model's presence path, if any."""
    description: str | None = None


@dataclass(slots=True)
class _Node:
    """One model level of the unflatten plan."""

    cls: type
    prefix: str
    leaves: list[tuple[str, str]] = field(default_factory=list)  # (field name, path)
    children: list[tuple[str, str, bool, _Node]] = field(default_factory=list)
    # (field name, path, optional, node)


class PathSpace:
    """Every path of one or more mounted models, with defaults and metadata.

    ``PathSpace.from_model(VllmConfig, mounts={"platform": Platform})`` puts the
    root model's fields at the top level and each mount under its prefix.
    """

    def __init__(self, roots: Mapping[str, type]) -> None:
        self.roots: dict[str, type] = dict(roots)
        self.info: dict[str, PathInfo] = {}
        self._plans: dict[str, _Node] = {}
        for prefix, cls in self.roots.items():
            self._plans[prefix] = self._walk(cls, prefix, None)
        self.paths: frozenset[str] = frozenset(self.info)
        self._defaults: dict[str, Any] = {p: freeze(i.default) for p, i in self.info.items()}
        self._adapters: dict[str, TypeAdapter[Any]] = {}
        self._builders: dict[str, Callable[[Mapping[str, Any]], Any]] = {}
        """:meth:`build`'s generated builders, by mount prefix (compiled on first use)."""
        self._prefixes_cache: frozenset[str] | None = None
        self._found: dict[str, _Node] = {}
        """Plans of the models mounted below a root, by prefix (found once)."""
        self._subplans: dict[tuple[str, tuple[str, ...]], _Node | None] = {}
        """:meth:`flatten_fields`' plan of some fields of a model, by prefix and field names."""
        self._absent: dict[str, dict[str, Any]] = {}
        """Per optional sub-model's prefix: what its leaves and presence paths flatten to when it is None."""

    @property
    def mounts(self) -> frozenset[str]:
        """The prefixes of the mounted models (facts beside the root model: ``platform``, ``env``, ...)."""
        return frozenset(p for p in self.roots if p)

    @classmethod
    def from_model(cls, root: type, *, mounts: Mapping[str, type] | None = None) -> PathSpace:
        """Build the space of ``root``'s fields plus each mounted model under its prefix."""
        return cls({"": root, **(mounts or {})})

    def _walk(self, cls: type, prefix: str, under: str | None) -> _Node:
        node = _Node(cls, prefix)
        for name, info in _fields(cls).items():
            path = f"{prefix}.{name}" if prefix else name
            extra = info.json_schema_extra if isinstance(info.json_schema_extra, Mapping) else {}
            sub, optional = _model_of(info.annotation)
            if sub is not None:
                if optional:
                    self.info[path] = PathInfo(
                        path, info.annotation, True if info.get_default(call_default_factory=True) is not None else None,
                        extra, presence=True, under=under, description=info.description,
                    )
                child = self._walk(sub, path, path if optional else under)
                node.children.append((name, path, optional, child))
                if not optional or info.is_required():
                    continue
                default_obj = _default(info)
                if default_obj is not None:
                    # an optional sub-model present by default: its leaves default to its values
                    for p, v in self.flatten_model(default_obj, path).items():
                        old = self.info[p]
                        self.info[p] = dataclasses.replace(old, default=v)
                continue
            self.info[path] = PathInfo(
                path, info.annotation, _default(info), extra, under=under, description=info.description,
            )
            node.leaves.append((name, path))
        return node

    # -- questions -----------------------------------------------------------------

    def __contains__(self, path: object) -> bool:
        return path in self.info

    def __iter__(self) -> Iterator[str]:
        return iter(self.info)

    def __len__(self) -> int:
        return len(self.info)

    def defaults(self) -> dict[str, Any]:
        """A fresh flat dict of every path's default value."""
        return dict(self._defaults)

    def suggest(self, path: str) -> str:
        """The " Did you mean ...?" suffix for an unknown path."""
        return did_you_mean(path, self.info)

    def require(self, path: str) -> PathInfo:
        """The info of ``path``, or :class:`UnknownFieldError` with a suggestion."""
        try:
            return self.info[path]
        except KeyError:
            raise UnknownFieldError(
                f"unknown field '{path}'.{self.suggest(path)}", path=path
            ) from None

    def owner(self, path: str) -> tuple[type, str]:
        """The model class a leaf or presence path is a field of, and the field's name."""
        self.require(path)
        prefix, _, name = path.rpartition(".")
        return self._find_plan(prefix).cls, name

    def models_along(self, path: str) -> list[type]:
        """The model classes from the root down to the one ``path`` is a field of (its mount's root first)."""
        self.require(path)
        parts = path.split(".")
        out = []
        for k in range(len(parts)):
            try:
                out.append(self._find_plan(".".join(parts[:k])).cls)
            except UnknownFieldError:  # a mount's prefix above its root ("a" of a mount at "a.b")
                continue
        return out

    # -- flatten / unflatten -----------------------------------------------------------

    def flatten_model(self, obj: Any, prefix: str = "") -> dict[str, Any]:
        """Flatten a model instance mounted at ``prefix`` into ``{path: frozen value}``."""
        plan = self._plans.get(prefix) or self._find_plan(prefix)
        out: dict[str, Any] = {}
        self._flatten_into(plan, obj, out)
        return out

    def _find_plan(self, prefix: str) -> _Node:
        found = self._found.get(prefix)
        if found is not None:
            return found
        stack = list(self._plans.values())
        while stack:
            node = stack.pop()
            if node.prefix == prefix:
                self._found[prefix] = node
                return node
            stack.extend(child for _, _, _, child in node.children)
        raise UnknownFieldError(f"no model is mounted at '{prefix}'", path=prefix)

    def _flatten_into(self, node: _Node, obj: Any, out: dict[str, Any]) -> None:
        keep = _FROZEN
        for name, path in node.leaves:
            v = getattr(obj, name)
            t = type(v)
            out[path] = v if keep.get(t) or (t not in keep and _frozen_type(t)) else freeze(v)
        for name, path, optional, child in node.children:
            sub = getattr(obj, name)
            if optional:
                out[path] = None if sub is None else True
            if sub is None:
                absent = self._absent.get(child.prefix)
                if absent is None:
                    absent = {p: self._defaults[p] for p in self._leaf_paths(child)}
                    self._absent_presences(child, absent)
                    self._absent[child.prefix] = absent
                out.update(absent)
            else:
                self._flatten_into(child, sub, out)

    def _leaf_paths(self, node: _Node) -> Iterator[str]:
        for _, path in node.leaves:
            yield path
        for _, _, _, child in node.children:
            yield from self._leaf_paths(child)

    def _absent_presences(self, node: _Node, out: dict[str, Any]) -> None:
        for _, path, optional, child in node.children:
            if optional:
                out[path] = None
            self._absent_presences(child, out)

    def flatten_fields(self, obj: Any, names: Iterable[str], out: dict[str, Any], prefix: str = "") -> None:
        """Flatten only the fields ``names`` of ``obj`` (mounted at ``prefix``) into ``out``.

        For a state that starts from the flattened defaults: the fields the input
        left out already hold what they would flatten to. Names that are no field
        (aliases) fall back to flattening all of ``obj``.
        """
        plan = self._plans.get(prefix) or self._find_plan(prefix)
        key = (prefix, tuple(names))
        if key in self._subplans:
            sub = self._subplans[key]
        else:
            wanted = set(key[1])
            known = {name for name, _ in plan.leaves} | {name for name, _, _, _ in plan.children}
            sub = None
            if wanted <= known:
                sub = _Node(plan.cls, plan.prefix)
                sub.leaves = [leaf for leaf in plan.leaves if leaf[0] in wanted]
                sub.children = [child for child in plan.children if child[0] in wanted]
            if len(self._subplans) < 4096:  # field lists come from the schema, not from input
                self._subplans[key] = sub
        self._flatten_into(sub if sub is not None else plan, obj, out)

    def flatten(self, objs: Mapping[str, Any]) -> dict[str, Any]:
        """Flatten one instance per mount (``{"": config, "platform": facts}``)."""
        out: dict[str, Any] = {}
        for prefix, obj in objs.items():
            out.update(self.flatten_model(obj, prefix))
        return out

    def flatten_partial(self, data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
        """Flatten a nested *input* dict to the paths it mentions (user-set paths).

        Unknown keys raise :class:`UnknownFieldError` with a suggestion. A
        sub-model given as ``None`` yields its presence path only.
        """
        out: dict[str, Any] = {}
        for key, value in data.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            info = self.info.get(path)
            if info is not None and not info.presence:
                out[path] = freeze(value)
                continue
            is_model = info is not None or path + "." in self._prefix_set()
            if not is_model:
                raise UnknownFieldError(f"unknown field '{path}'.{self.suggest(path)}", path=path, value=value)
            if info is not None and info.presence:
                out[path] = None if value is None else True
            if isinstance(value, BaseModel):
                value = {k: getattr(value, k) for k in value.model_fields_set}
            elif dataclasses.is_dataclass(value) and not isinstance(value, type):
                value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
            if isinstance(value, Mapping):
                out.update(self.flatten_partial(value, path))
        return out

    def _prefix_set(self) -> frozenset[str]:
        cached: frozenset[str] | None = getattr(self, "_prefixes_cache", None)
        if cached is None:
            found: set[str] = set()
            for pre in self._model_prefixes():
                parts = pre[:-1].split(".")
                found.update(".".join(parts[:k]) + "." for k in range(1, len(parts) + 1))
            cached = frozenset(found)
            self._prefixes_cache = cached
        return cached

    def _model_prefixes(self) -> Iterator[str]:
        stack = list(self._plans.values())
        while stack:
            node = stack.pop()
            if node.prefix:
                yield node.prefix + "."
            stack.extend(child for _, _, _, child in node.children)

    def unflatten(self, flat: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
        """Turn a flat dict back into the nested plain dict of the model mounted at ``prefix``."""
        return self._unflatten(self._plans.get(prefix) or self._find_plan(prefix), flat)

    def _unflatten(self, node: _Node, flat: Mapping[str, Any]) -> dict[str, Any]:
        keep = _KEEP
        out: dict[str, Any] = {
            name: v if keep.get(type(v)) else thaw(v) for name, path in node.leaves for v in (flat[path],)
        }
        for name, path, optional, child in node.children:
            if optional and flat.get(path) is None:
                out[name] = None
            else:
                out[name] = self._unflatten(child, flat)
        return out

    def construct(self, flat: Mapping[str, Any], prefix: str = "") -> Any:
        """An instance of the model mounted at ``prefix`` from the flat state, *without* validation.

        For states no validator would accept (a resolution stopped by a violation keeps
        the values it had): every value is taken as it is.
        """
        return self._construct(self._plans.get(prefix) or self._find_plan(prefix), flat)

    def _construct(self, node: _Node, flat: Mapping[str, Any]) -> Any:
        values: dict[str, Any] = {name: thaw(flat[path]) for name, path in node.leaves}
        for name, path, optional, child in node.children:
            values[name] = None if optional and flat.get(path) is None else self._construct(child, flat)
        cls = node.cls
        if issubclass(cls, BaseModel):
            return cls.model_construct(**values)
        obj = object.__new__(cls)
        for name, value in values.items():
            object.__setattr__(obj, name, value)
        return obj

    def build(self, flat: Mapping[str, Any], prefix: str = "") -> Any:
        """Validate the flat state back into an instance of the model mounted at ``prefix``.

        What :meth:`build_validated` returns (or raises), computed by the model's generated builder
        (:mod:`postinit.engine._builder`: each leaf checked by a plain expression of its annotation, pydantic
        only for a leaf the expression cannot vouch for); where the builder gives up, by pydantic.
        """
        builder = self._builders.get(prefix) or self.builder(prefix)
        try:
            return builder(flat)
        except Exception:  # not this way: pydantic says what validation makes of it
            return self.build_validated(flat, prefix)

    def builder(self, prefix: str = "") -> Callable[[Mapping[str, Any]], Any]:
        """The generated builder of the model mounted at ``prefix`` (compiled on first use): what
        :meth:`build_validated` returns, or an exception where it cannot vouch for a value."""
        builder = self._builders.get(prefix)
        if builder is None:
            node = self._plans.get(prefix) or self._find_plan(prefix)
            builder = self._builders[prefix] = compile_builder(node, thaw, self._unflatten, FrozenDict)
        return builder

    def build_validated(self, flat: Mapping[str, Any], prefix: str = "") -> Any:
        """Validate the flat state back into an instance of the model mounted at ``prefix`` with pydantic
        (unflattened, then validated whole: the reference :meth:`build` is tested against)."""
        adapter = self._adapters.get(prefix)
        if adapter is None:
            cls = self.roots[prefix] if prefix in self.roots else self._find_plan(prefix).cls
            adapter = self._adapters[prefix] = TypeAdapter(cls)
        return adapter.validate_python(self.unflatten(flat, prefix))
