"""The typed config of a flat state, built without pydantic's validation pass where validation would keep the values.

``PathSpace.build_validated`` unflattens the state and validates it with pydantic: each of the ~1,000 leaves is
checked against its annotation, every model rebuilt. A resolved state almost always holds values of exactly the
types their fields declare, which validation returns unchanged, so :func:`compile_builder` generates, once per
mounted model, one function that takes each model's fields from the flat state in one ``itemgetter`` call and
checks them at C speed: the tuple of their exact types against a set of type signatures already found valid
(a field of scalars, None or enums keeps a value of an allowed type; a float field turns an int into its float,
as pydantic does), the literals' values against their allowed values, the bounded leaves' values (``ge=1``, ...)
against a set of value tuples already found in bounds; lists, dicts and other leaves by an expression derived
from their annotation (``type(v) is list and {int}.issuperset(map(type, v))``). It then builds the objects
directly (what ``model_construct`` does) and runs the model's ``after`` validator, as validation does.

A leaf with a validator of its own (``AfterValidator``, ``BeforeValidator``) is validated alone by a
``TypeAdapter`` of its annotated type (pydantic's own answer for that field); a model with other validators,
aliases, private attributes or a ``model_post_init`` is validated whole by pydantic. Whatever the builder cannot
vouch for raises (:class:`NotFast`, or pydantic's error): ``PathSpace.build`` then validates the whole state as
before, so a state validation refuses or converts gets exactly the answer it always got.
``tests/golden/test_config_build.py`` proves the built objects equal the validated ones, field by field and type by
type (dict order and ``model_fields_set`` included), on every golden case of every version (``-m deep``), and that
the builder never answers where pydantic refuses or converts a probe value.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import operator
import types
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, Protocol

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, TypeAdapter

__all__ = ["NotFast", "compile_builder", "leaf_check", "type_set"]


class Node(Protocol):
    """One model level of a :class:`~postinit.engine.PathSpace`'s plan (``_paths._Node``)."""

    cls: type
    prefix: str
    leaves: list[tuple[str, str]]
    children: list[tuple[str, str, bool, Any]]


_SCALARS = (int, str, bool, float)
_BOUNDS: dict[str, tuple[str, str]] = {"Ge": ("ge", ">="), "Gt": ("gt", ">"), "Le": ("le", "<="), "Lt": ("lt", "<"),
                                       "MinLen": ("min_length", ">="), "MaxLen": ("max_length", "<=")}
"""pydantic's constraint metadata (``annotated_types``' classes, by name): the attribute and the comparison."""


class _Names:
    """The generated function's globals: each object it needs gets a name once."""

    def __init__(self, base: Mapping[str, Any]) -> None:
        self.ns: dict[str, Any] = dict(base)
        self._by_id: dict[int, str] = {}
        self._vars = 0

    def local(self, stem: str) -> str:
        """A fresh name for a generator expression's variable."""
        self._vars += 1
        return f"_{stem}{self._vars}"

    def of(self, obj: Any, stem: str = "k") -> str:
        name = self._by_id.get(id(obj))
        if name is None:
            name = self._by_id[id(obj)] = f"_{stem}{len(self.ns)}"
            self.ns[name] = obj
        return name


def type_set(tp: Any) -> frozenset[type] | None:
    """The exact types a value of ``tp`` may have for validation to return it unchanged, when that is all there is
    to check (scalars, None, enums and unions of them, no literal or constraint); else None."""
    if tp is None or tp is type(None):
        return frozenset({type(None)})
    if tp in _SCALARS:
        return frozenset({tp})
    if isinstance(tp, type) and issubclass(tp, enum.Enum) and not issubclass(tp, (tuple, dict, frozenset)):
        return frozenset({tp})
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        out: set[type] = set()
        for a in typing.get_args(tp):
            sub = type_set(a)
            if sub is None:
                return None
            out |= sub
        return frozenset(out)
    return None


def _type_check(tp: Any, x: str, names: _Names) -> str | None:
    """A Python expression over the variable ``x`` that is true only when pydantic's validation of ``x`` as ``tp``
    succeeds and returns a value equal to ``x`` of the same type (a new list or dict of the same items counts as
    the same); None when no such expression is derived (the leaf is validated by pydantic)."""
    if tp is Any:
        return "True"
    if tp is None or tp is type(None):
        return f"{x} is None"
    if tp in _SCALARS:
        return f"type({x}) is {tp.__name__}"
    if isinstance(tp, type) and issubclass(tp, enum.Enum) and not issubclass(tp, (tuple, dict, frozenset)):
        return f"type({x}) is {names.of(tp, 'E')}"
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is Annotated:
        return leaf_check(args[0], list(tp.__metadata__), x, names)
    if origin is Literal:
        parts = []
        for t in (str, int, bool):
            vals = frozenset(v for v in args if type(v) is t)
            if vals:
                parts.append(f"(type({x}) is {t.__name__} and {x} in {names.of(vals, 'L')})")
        if len(parts) != len({type(v) for v in args}):
            return None  # an enum or bytes literal
        return "(" + " or ".join(parts) + ")"
    if origin in (typing.Union, types.UnionType):
        subs = [_type_check(a, x, names) for a in args]
        if any(s is None for s in subs):
            return None
        return "(" + " or ".join(typing.cast(list[str], subs)) + ")"
    if origin is list or tp is list:
        item = args[0] if args else Any
        if item is Any:
            return f"type({x}) is list"
        items = type_set(item)
        if items is not None:
            return f"(type({x}) is list and {names.of(items, 'T')}.issuperset(map(type, {x})))"
        var = names.local("i")
        sub = _type_check(item, var, names)
        return None if sub is None else f"(type({x}) is list and all({sub} for {var} in {x}))"
    if origin is dict or tp is dict:
        k, v = args if args else (Any, Any)
        keys, values = type_set(k), (None if v is Any else type_set(v))
        if keys is not None and (values is not None or v is Any):
            check = f"type({x}) is dict and {names.of(keys, 'T')}.issuperset(map(type, {x}))"
            if values is not None:
                check += f" and {names.of(values, 'T')}.issuperset(map(type, {x}.values()))"
            return f"({check})"
        kv, vv = names.local("k"), names.local("v")
        ks, vs = _type_check(k, kv, names), _type_check(v, vv, names)
        if ks is None or vs is None:
            return None
        if ks == "True" and vs == "True":
            return f"type({x}) is dict"
        return f"(type({x}) is dict and all({ks} and {vs} for {kv}, {vv} in {x}.items()))"
    return None


def bounds_check(metadata: list[Any], x: str) -> str | None:
    """An expression true when the value ``x`` (None, or of a type the field keeps) meets the field's constraints
    (``ge``, ``gt``, ``le``, ``lt``, ``min_length``, ``max_length``; None is never bounded); None for other
    metadata, "True" for none."""
    bounds = []
    for m in metadata:
        kind = type(m)
        found = _BOUNDS.get(kind.__name__) if kind.__module__ == "annotated_types" else None
        if found is None:
            return None
        attr, op = found
        bound = getattr(m, attr)
        if type(bound) not in (int, float):
            return None
        bounds.append(f"{'len(' + x + ')' if attr.endswith('length') else x} {op} {bound!r}")
    return f"({x} is None or ({' and '.join(bounds)}))" if bounds else "True"


def leaf_check(annotation: Any, metadata: list[Any], x: str, names: _Names) -> str | None:
    """:func:`_type_check` of a field's annotation with its constraints (:func:`bounds_check`) and at most one
    ``AfterValidator`` / ``BeforeValidator`` of a plain function, which must return the value itself (then
    validation's result is the value); None when any part has no expression."""
    validators = [m for m in metadata if type(m) in (AfterValidator, BeforeValidator)]
    if len(validators) > 1:
        return None
    check = _type_check(annotation, x, names)
    bounds = bounds_check([m for m in metadata if type(m) not in (AfterValidator, BeforeValidator)], x)
    if check is None or bounds is None:
        return None
    out = check if bounds == "True" else f"({check} and {bounds})"
    if not validators:
        return out
    func = validators[0].func
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    if len(params) != 1 or params[0].kind not in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
        return None  # one that takes pydantic's ValidationInfo
    call = f"{names.of(func, 'W')}({x}) is {x}"
    return f"({out} and {call})" if type(validators[0]) is AfterValidator else f"({call} and {out})"


_CONTAINERS = ("list", "dict", "True")
"""Words of a generated check that passes a list, a dict or anything (``Any``): a frozen value
(:func:`~postinit.engine._paths.thaw` turns tuples and ``FrozenDict`` back) is thawed before it is checked."""


def _fields(cls: type) -> dict[str, Any]:
    fields: dict[str, Any] = cls.__pydantic_fields__  # type: ignore[attr-defined]
    return fields


def _config(cls: type) -> ConfigDict:
    if issubclass(cls, BaseModel):
        return cls.model_config
    return typing.cast(ConfigDict, getattr(cls, "__pydantic_config__", {}))


def _plain_model(cls: type) -> tuple[bool, list[Callable[[Any], Any]]]:
    """Whether ``cls`` can be built field by field (and its ``after`` model validators, in order), else False:
    validators of other kinds, aliases, private attributes, ``model_post_init`` / ``__post_init__``, extra
    fields kept, a root model."""
    dec = getattr(cls, "__pydantic_decorators__", None)
    if dec is None or dec.field_validators or dec.validators or dec.root_validators:
        return False, []
    after = []
    for d in dec.model_validators.values():
        if d.info.mode != "after" or len(inspect.signature(d.func).parameters) != 1:
            return False, []  # another kind, or one that takes pydantic's ValidationInfo
        after.append(d.func)
    if len(after) > 1:
        return False, []  # their order is pydantic's business
    if _config(cls).get("extra") == "allow":
        return False, []
    for info in _fields(cls).values():
        if info.alias is not None or info.validation_alias is not None:
            return False, []
    if issubclass(cls, BaseModel):
        if cls.__private_attributes__ or cls.__pydantic_post_init__ or cls.__pydantic_root_model__:
            return False, []
    elif not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        return False, []
    return True, after


def _getter(paths: list[str]) -> Callable[[Mapping[str, Any]], tuple[Any, ...]]:
    """``itemgetter`` of ``paths`` that always gives a tuple (C speed)."""
    if len(paths) == 1:
        one = paths[0]
        return lambda flat: (flat[one],)
    if not paths:
        return lambda flat: ()
    return operator.itemgetter(*paths)


class NotFast(Exception):
    """The builder cannot vouch for a value: the state is validated by pydantic instead."""


def _as_float(n: int) -> float:
    """What pydantic validates the int ``n`` to in a float field, where that is exactly ``float(n)``."""
    if -_EXACT <= n <= _EXACT:
        return float(n)
    raise NotFast


_EXACT = 2 ** 53


class _Table:
    """Signatures of the state already found valid, and how to check a new one."""

    def __init__(self, check: Callable[[tuple[Any, ...]], bool]) -> None:
        self.check = check
        self.valid: set[tuple[Any, ...]] = set()

    def miss(self, key: tuple[Any, ...]) -> None:
        if not self.check(key):
            raise NotFast
        if len(self.valid) >= 512:
            self.valid.clear()
        self.valid.add(key)


class _Leaf:
    """One leaf of the tree, classified by how the builder checks it."""

    def __init__(self, owner: type, name: str, path: str, names: _Names) -> None:
        self.owner, self.name, self.path = owner, name, path
        info = _fields(owner)[name]
        self.annotation, self.metadata = info.annotation, list(info.metadata)
        self.types = type_set(self.annotation) if all(_bound(m) for m in self.metadata) else None
        self.bounded = self.types is not None and bool(self.metadata)
        self.floats = self.types is not None and float in self.types and int not in self.types
        """A float field: an int is validated to the float of the same value (pydantic's lax and strict modes)."""
        if self.floats:
            self.types = typing.cast(frozenset[type], self.types) | {int}
        self.literal = None if self.metadata else _literal(self.annotation)
        self.check = None if self.types is not None or self.literal is not None \
            else leaf_check(self.annotation, self.metadata, "x", names)

    def validator(self) -> Callable[[Any], Any]:
        """pydantic's validation of this field alone (its annotation with its constraints)."""
        tp: Any = Annotated[(self.annotation, *self.metadata)] if self.metadata else self.annotation
        config = _config(self.owner)
        adapter = TypeAdapter(tp, config=config or None) if not _is_model_type(self.annotation) else TypeAdapter(tp)
        return adapter.validate_python


def _bound(m: Any) -> bool:
    return bounds_check([m], "x") is not None


def _literal(tp: Any) -> tuple[frozenset[type], frozenset[Any]] | None:
    """``Literal[...]`` or ``Literal[...] | None`` of str/int/bool values: (the values' exact types, the values)."""
    args = typing.get_args(tp)
    if typing.get_origin(tp) in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        inner = _literal(args[0] if args[1] is type(None) else args[1])
        if inner is None:
            return None
        return inner[0] | {type(None)}, inner[1] | {None}
    if typing.get_origin(tp) is not Literal or not {type(v) for v in args} <= {str, int, bool}:
        return None
    return frozenset(type(v) for v in args), frozenset(args)


class _Gen:
    def __init__(self, thaw: Callable[[Any], Any], unflatten: Callable[[Any, Mapping[str, Any]], dict[str, Any]],
                 frozen_dict: type) -> None:
        self.thaw = thaw
        self.names = _Names({"_thaw": thaw, "_unflatten": unflatten, "_FrozenDict": frozen_dict, "_EMPTY": (), "_new": object.__new__,
                             "_set": object.__setattr__, "_dict": dict, "_zip": zip, "_tuple": tuple,
                             "_map": map, "_type": type, "_all": all, "_in": frozenset.__contains__,
                             "NotFast": NotFast, "_as_float": _as_float})
        self.lines: list[str] = []
        self.count = 0

    def var(self) -> str:
        self.count += 1
        return f"v{self.count}"

    def emit(self, indent: int, line: str) -> None:
        self.lines.append("    " * indent + line)

    def node(self, node: Node, indent: int) -> str:
        """Code that builds the model at ``node`` into a new variable (its name), checking each of its leaves:
        by one signature of the exact types of all its fields (a set of signatures found valid), the literals'
        values and the bounded leaves' values at C speed, each other leaf by an expression of its own."""
        cls = node.cls
        out = self.var()
        plain, after = _plain_model(cls)
        if not plain:
            adapter: TypeAdapter[Any] = TypeAdapter(cls)
            self.emit(indent, f"{out} = {self.names.of(adapter.validate_python, 'A')}"
                              f"(_unflatten({self.names.of(node, 'N')}, flat))")
            return out
        order = list(_fields(cls))
        leaves = dict(node.leaves)
        children = {name: (path, optional, child) for name, path, optional, child in node.children}
        t = self.var()
        if leaves:
            anywhere = next(iter(leaves.values()))  # children's places hold a leaf until they are built
            getter = _getter([leaves.get(name, anywhere) for name in order])
            self.emit(indent, f"{t} = list({self.names.of(getter, 'G')}(flat))")
        else:
            self.emit(indent, f"{t} = [None] * {len(order)}")
        allowed: list[frozenset[type] | None] = [None] * len(order)
        literals: list[tuple[int, frozenset[Any]]] = []
        bounded: list[tuple[int, _Leaf]] = []
        for i, name in enumerate(order):
            if name not in leaves:
                continue
            leaf = _Leaf(cls, name, leaves[name], self.names)
            if leaf.types is not None:
                allowed[i] = leaf.types
                if leaf.bounded:
                    bounded.append((i, leaf))
                if leaf.floats:
                    self.emit(indent, f"if _type({t}[{i}]) is int: {t}[{i}] = _as_float({t}[{i}])")
                continue
            if leaf.literal is not None:
                allowed[i] = leaf.literal[0]
                literals.append((i, leaf.literal[1]))
                continue
            x = t + f"[{i}]"
            if leaf.check is None:
                self.emit(indent, f"{x} = {self.names.of(leaf.validator(), 'A')}(_thaw({x}))")
                continue
            v = self.var()
            check = typing.cast(str, leaf_check(leaf.annotation, leaf.metadata, v, self.names))
            self.emit(indent, f"{v} = {x}")
            inner = indent
            if check.endswith(f" or {v} is None)"):  # None passes: nothing to thaw or check
                self.emit(indent, f"if {v} is not None:")
                inner += 1
            if any(word in check for word in _CONTAINERS):
                # an empty list or dict (frozen: the one empty tuple, an empty FrozenDict) thaws to a new empty one
                # and passes the check or never does (tried here, on the empty value itself)
                passes = {kind: eval(check, dict(self.names.ns), {v: empty})  # our own expression
                          for kind, empty in (("list", []), ("dict", {}))}
                branch = "if"
                if passes["list"]:
                    self.emit(inner, f"if {v} is _EMPTY: {x} = []")
                    branch = "elif"
                if passes["dict"]:
                    self.emit(inner, f"{branch} _type({v}) is _FrozenDict and not {v}: {x} = {{}}")
                    branch = "elif"
                if branch == "elif":
                    self.emit(inner, "else:")
                    inner += 1
                self.emit(inner, f"{x} = {v} = _thaw({v})")
            self.emit(inner, f"if not {check}: raise NotFast")
        if any(a is not None for a in allowed):
            # before the floats' conversion above? no: a converted int is a float, which the field allows
            table = self.names.of(_Table(functools.partial(_types_ok, allowed)), "T")
            self.emit(indent, f"s = _tuple(_map(_type, {t}))")
            self.emit(indent, f"if s not in {table}.valid: {table}.miss(s)")
        if literals:
            g = self.names.of(_getter_of([i for i, _ in literals]), "G")
            sets = self.names.of(tuple(values for _, values in literals), "S")
            self.emit(indent, f"if not _all(_map(_in, {sets}, {g}({t}))): raise NotFast")
        if bounded:
            checks = [typing.cast(str, bounds_check(leaf.metadata, f"s[{k}]")) for k, (_, leaf) in enumerate(bounded)]
            source = "def bounds_ok(s):\n    return " + " and ".join(checks) + "\n"
            namespace: dict[str, Any] = {}
            exec(compile(source, f"<postinit builder bounds of {cls.__name__}>", "exec"), namespace)
            g = self.names.of(_getter_of([i for i, _ in bounded]), "G")
            table = self.names.of(_Table(namespace["bounds_ok"]), "T")
            self.emit(indent, f"s = {g}({t})")
            self.emit(indent, f"if s not in {table}.valid: {table}.miss(s)")
        for i, name in enumerate(order):
            if name not in children:
                continue
            path, optional, child = children[name]
            if optional:
                self.emit(indent, f"if flat.get({path!r}) is None: {t}[{i}] = None")
                self.emit(indent, "else:")
                self.emit(indent + 1, f"{t}[{i}] = {self.node(child, indent + 1)}")
            else:
                self.emit(indent, f"{t}[{i}] = {self.node(child, indent)}")
        c = self.names.of(cls, "C")
        self.emit(indent, f"{out} = _new({c})")
        self.emit(indent, f"_set({out}, '__dict__', _dict(_zip({self.names.of(tuple(order), 'O')}, {t})))")
        if issubclass(cls, BaseModel):
            fields_set = self.names.of(frozenset(order), "F")
            self.emit(indent, f"_set({out}, '__pydantic_fields_set__', set({fields_set}))")
            self.emit(indent, f"_set({out}, '__pydantic_extra__', None)")
            self.emit(indent, f"_set({out}, '__pydantic_private__', None)")
        for func in after:
            self.emit(indent, f"{out} = {self.names.of(func, 'V')}({out})")
        return out


def _getter_of(indices: list[int]) -> Callable[[list[Any]], tuple[Any, ...]]:
    """``itemgetter`` of list positions that always gives a tuple."""
    if len(indices) == 1:
        one = indices[0]
        return lambda values: (values[one],)
    return operator.itemgetter(*indices)


def _types_ok(allowed: list[frozenset[type] | None], signature: tuple[type, ...]) -> bool:
    """Whether each field's value has a type its field keeps (None: the field is checked otherwise)."""
    return all(a is None or t in a for t, a in zip(signature, allowed, strict=True))


def _is_model_type(tp: Any) -> bool:
    return isinstance(tp, type) and (issubclass(tp, BaseModel) or dataclasses.is_dataclass(tp))


def compile_builder(node: Node, thaw: Callable[[Any], Any],
                    unflatten: Callable[[Any, Mapping[str, Any]], dict[str, Any]],
                    frozen_dict: type) -> Callable[[Mapping[str, Any]], Any]:
    """The generated builder of the model at ``node`` from a flat state (see the module docstring): it returns what
    pydantic's validation of ``unflatten(node, flat)`` returns, or raises (then validate as before). ``thaw`` and
    ``unflatten`` are the path space's, ``frozen_dict`` the class of its frozen dicts."""
    gen = _Gen(thaw, unflatten, frozen_dict)
    out = gen.node(node, 1)
    gen.lines.insert(0, "def build(flat):")
    gen.emit(1, f"return {out}")
    source = "\n".join(gen.lines)
    code = compile(source, f"<postinit builder {node.cls.__name__}>", "exec")
    namespace = gen.names.ns
    exec(code, namespace)
    built: Callable[[Mapping[str, Any]], Any] = namespace["build"]
    built.__doc__ = source
    return built
