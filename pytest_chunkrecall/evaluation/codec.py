"""The case record's one codec: to JSON values, back from them, and its JSON Schema.

Each is read from the field types of the record (:class:`.results.CaseResult`) and
of the values it holds, so a field is written, read, checked and described the
way its type says, and nowhere else:

- :func:`encode`: a record (any frozen dataclass of these types) as plain JSON
  values, fields in their order;
- :func:`decode`: JSON values back to a record, checked on the way, since a report
  read back is user input: a wrong value is a :class:`Malformed` naming the key
  (``top[2].rank``) and what the value must be, never a traceback;
- :func:`schema`: the JSON Schema (draft 2020-12) of a record, its nested records
  in ``$defs``.

Beyond Python's types, a field's type may carry :class:`Least` (the smallest whole
number it takes), :class:`Items` (how many items a list holds), :class:`Together`
(fields present together: absent from the JSON when all are ``None``) and
:class:`Note` (what the schema tells its readers), as ``Annotated`` metadata.
"""

from __future__ import annotations

import functools
import re
import types
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields, is_dataclass
from typing import (
    Annotated,
    Any,
    Literal,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from ..errors import printable, shown

T = TypeVar("T")


@dataclass(frozen=True)
class Least:
    """A whole number's smallest value: ``Annotated[int, Least(1)]`` counts from 1."""

    minimum: int


@dataclass(frozen=True)
class Items:
    """How many items a list holds, at least and at most."""

    least: int | None = None
    most: int | None = None


@dataclass(frozen=True)
class Together:
    """Fields of one ``group`` that are in the JSON together or not at all: absent when every
    one of them is ``None``, and never ``null`` when present."""

    group: str


@dataclass(frozen=True)
class Note:
    """What the schema says of a field to its readers."""

    text: str


@dataclass(frozen=True)
class OneOf:
    """The texts a ``str`` field takes, where their one home is a tuple (the match modes)."""

    choices: tuple[str, ...]


@dataclass(frozen=True)
class Printable:
    """Text that every summary prints as it is (a node id, a case id, a gold file): it may hold
    no control characters."""


@dataclass(frozen=True)
class NullIsDefault:
    """A field that reports written before it was recorded hold as ``null``: read as its
    default. (It is never written as ``null``.)"""


class Malformed(ValueError):
    """A JSON value that is not what the record's type says.

    ``key`` is where (``top[2].rank``); ``problem`` what the value must be, or, for
    a key that is ``missing``, what the record lacks (``has no 'k'``).
    """

    def __init__(self, key: str, problem: str, *, value: Any = None, missing: bool = False):
        self.key, self.problem, self.value, self.missing = key, problem, value, missing
        super().__init__(self.said("the record"))

    def said(self, where: str) -> str:
        """The problem as a sentence about ``where`` (``case 3 (gold/a.yaml::x)``)."""
        if self.missing:
            return f"{where} {self.problem}"
        return f"{where}: {self.key!r} is {shown(self.value, 60)}; it {self.problem}"


@dataclass(frozen=True)
class Shape:
    """What one field's type says, read once: ``kind`` (text, whole, number, flag, choice, list,
    record), whether it may be null, and its bounds."""

    kind: Literal["text", "whole", "number", "flag", "choice", "list", "record", "object"]
    nullable: bool = False
    least: int | None = None
    choices: tuple[str, ...] = ()
    item: Shape | None = None
    items: Items | None = None
    record: type | None = None
    together: str | None = None
    note: str | None = None
    named: str | None = None  # the $defs name of a choice that has one
    null_is_default: bool = False
    printable: bool = False

    @property
    def what(self) -> str:
        """What a value of this shape must be, as the end of a sentence ("must be …")."""
        base = _WHAT[self.kind]
        if self.printable:
            base = "text without control characters"
        if self.kind == "whole" and self.least is not None:
            base = f"a whole number from {self.least}"
        elif self.kind == "choice":
            base = "one of " + ", ".join(self.choices)
        elif self.kind == "list":
            assert self.item is not None
            least = self.items.least if self.items is not None else None
            base = f"a list of {least} or more items" if least else "a list"
            if self.item.kind != "record":
                base += f", each {self.item.what}"
        if not self.nullable:
            return base
        return f"{base}, or null" if self.kind in ("whole", "choice") else f"{base} or null"


_WHAT = {
    "text": "text",
    "whole": "a whole number",
    "number": "a number",
    "flag": "true or false",
    "choice": "one of",
    "list": "a list",
    "record": "an object",
    "object": "an object",
}
_SCALARS: dict[type, Literal["text", "whole", "number", "flag"]] = {
    str: "text",
    int: "whole",
    float: "number",
    bool: "flag",
}
_NAMED: dict[object, str] = {}


def name_choices(choices: object, name: str) -> None:
    """Give a ``Literal`` type a ``$defs`` name in the schema (``Verdict`` is ``verdict``)."""
    _NAMED[choices] = name


def shape_of(hint: Any) -> Shape:
    """The :class:`Shape` of a resolved type hint."""
    metadata: tuple[Any, ...] = ()
    if get_origin(hint) is Annotated:
        hint, *extra = get_args(hint)
        metadata = tuple(extra)
    nullable = False
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        arguments = [arg for arg in get_args(hint) if arg is not type(None)]
        nullable = len(arguments) < len(get_args(hint))
        if len(arguments) != 1:
            raise TypeError(f"a record field is one type or None, not {hint!r}")
        inner = shape_of(arguments[0])
        return _with(inner, metadata, nullable=nullable or inner.nullable)
    return _with(_bare(hint, origin), metadata, nullable=False)


def _bare(hint: Any, origin: Any) -> Shape:
    if hint in _SCALARS:
        return Shape(_SCALARS[hint])
    if origin is Literal:
        return Shape("choice", choices=tuple(get_args(hint)), named=_NAMED.get(hint))
    if origin is list:
        (item,) = get_args(hint)
        return Shape("list", item=shape_of(item))
    if origin is dict or hint is dict:  # free-form: its keys are no record's
        return Shape("object")
    if isinstance(hint, type) and is_dataclass(hint):
        return Shape("record", record=hint)
    raise TypeError(f"the codec has no JSON form for {hint!r}")


def _with(shape: Shape, metadata: tuple[Any, ...], *, nullable: bool) -> Shape:
    values: dict[str, Any] = {"nullable": nullable or shape.nullable}
    for item in metadata:
        if isinstance(item, Least):
            values["least"] = item.minimum
        elif isinstance(item, Items):
            values["items"] = item
        elif isinstance(item, Together):
            values["together"] = item.group
        elif isinstance(item, Note):
            values["note"] = item.text
        elif isinstance(item, Printable):
            values["printable"] = True
        elif isinstance(item, NullIsDefault):
            values["null_is_default"] = True
        elif isinstance(item, OneOf):
            values["kind"], values["choices"] = "choice", item.choices
    fields_of_shape = {f.name: getattr(shape, f.name) for f in fields(Shape)}
    return Shape(**{**fields_of_shape, **values})


@dataclass(frozen=True)
class Field:
    """A record's field as the codec sees it: its name, shape and default (``required``: none);
    ``plain``: for a scalar, whether a value is one it takes as it is, asked before any
    other check (most values are)."""

    name: str
    shape: Shape
    required: bool
    default: Callable[[], Any]
    plain: Callable[[Any], bool] | None = None


@functools.cache
def fields_of(kind: type) -> tuple[Field, ...]:
    """The fields of the record type ``kind``, in order."""
    hints = get_type_hints(kind, include_extras=True)
    found = []
    for each in fields(kind):
        if each.default is not MISSING:
            default: Callable[[], Any] = functools.partial(_same, each.default)
        elif each.default_factory is not MISSING:
            default = each.default_factory
        else:
            default = _no_default
        shape = shape_of(hints[each.name])
        found.append(Field(each.name, shape, default is _no_default, default, _plain(shape)))
    return tuple(found)


def _plain(shape: Shape) -> Callable[[Any], bool] | None:
    """A quick test that a value of a scalar field is fine as it is (see :attr:`Field.plain`)."""
    if shape.kind in ("list", "record", "object") or shape.together or shape.null_is_default:
        return None
    if shape.printable:
        return lambda value: type(value) is str and printable(value) == value
    exact = {"text": str, "flag": bool, "whole": int, "number": float}.get(shape.kind)
    least = shape.least
    if shape.kind == "choice":
        choices = frozenset(shape.choices)
        return lambda value: value in choices and type(value) is str
    if least is not None:
        return lambda value: type(value) is int and value >= least
    nullable = shape.nullable
    return lambda value: type(value) is exact or (value is None and nullable)


def _same(value: Any) -> Any:
    return value


def _no_default() -> Any:
    raise AssertionError("a required field has no default")


@functools.cache
def groups_of(kind: type) -> tuple[tuple[str, ...], ...]:
    """The :class:`Together` groups of ``kind``'s fields, each its field names in order."""
    groups: dict[str, list[str]] = {}
    for each in fields_of(kind):
        if each.shape.together is not None:
            groups.setdefault(each.shape.together, []).append(each.name)
    return tuple(tuple(names) for names in groups.values())


@functools.cache
def field_names(kind: type) -> tuple[str, ...]:
    """The names of a record's fields, in order."""
    # Records have slots, so no __dict__ to read their fields from.
    return tuple(f.name for f in fields(kind))


# ------------------------------------------------------------------------------- encode


def encode(value: Any) -> Any:
    """``value`` (a record, or a list of them) as plain JSON values: what
    ``dataclasses.asdict`` gives, without its deep copies, and without each
    :class:`Together` group whose fields are all ``None``."""
    # Every leaf here is an immutable str, int, float, bool or None: copying
    # the containers is enough, and several times cheaper than asdict's deepcopy.
    # Leaves are most values, so each container recognises them itself rather
    # than making a call for each (a result is a few dozen values, made per case).
    if isinstance(value, list):
        return [item if isinstance(item, _LEAVES) else encode(item) for item in value]
    if isinstance(value, dict):
        return {
            key: item if isinstance(item, _LEAVES) else encode(item) for key, item in value.items()
        }
    if is_dataclass(value) and not isinstance(value, type):
        names, groups = _layout(type(value))
        plain = {
            key: item if isinstance(item := getattr(value, key), _LEAVES) else encode(item)
            for key in names
        }
        for group in groups:
            if all(plain[key] is None for key in group):
                for key in group:
                    del plain[key]
        return plain
    return value


@functools.cache
def _layout(kind: type) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """A record's field names and :class:`Together` groups, read in one look-up."""
    return field_names(kind), groups_of(kind)


_LEAVES = (str, int, float, type(None))


# ------------------------------------------------------------------------------- decode


def decode(kind: type[T], data: Any, *, at: str = "") -> T:
    """The record of type ``kind`` that :func:`encode` wrote as ``data``, checked.

    Keys the record does not have are left out; a missing key with a default
    takes it. Raises :class:`Malformed` for a value that is not what its
    field's type says, or a missing key that has no default.
    """
    if not isinstance(data, dict):
        raise Malformed(at or "record", "must be an object", value=data)
    record: type = kind  # every type is hashable, as the caches of its fields need
    values: dict[str, Any] = {}
    get = data.get
    for name, plain, each in _plan(record):
        value = get(name, _ABSENT)
        if plain is not None and plain(value):
            values[name] = value
        else:
            values[name] = _field(each, value, at)
    for group in groups_of(record):
        present = [name for name in group if name in data]
        if present and len(present) < len(group):
            other = next(name for name in group if name not in data)
            key = f"{at}.{present[0]}" if at else present[0]
            raise Malformed(key, f"has {key!r} but no {other!r}", missing=True)
    return kind(**values)


_ABSENT = object()


@functools.cache
def _plan(kind: type) -> tuple[tuple[str, Callable[[Any], bool] | None, Field], ...]:
    """What :func:`decode` reads of each field, in the order it reads them."""
    return tuple((each.name, each.plain, each) for each in fields_of(kind))


def _field(each: Field, value: Any, at: str) -> Any:
    """A field's value that is not plainly fine: absent, null, a list, a record, or wrong."""
    key = f"{at}.{each.name}" if at else each.name
    if value is _ABSENT:
        if each.required:
            raise Malformed(key, f"has no {key!r}", missing=True)
        return each.default()
    if value is None and each.shape.null_is_default:
        return each.default()
    if value is None and each.shape.together is not None:
        raise Malformed(key, f"must be {_present(each.shape).what}", value=value)
    return read(each.shape, value, key)


def _present(shape: Shape) -> Shape:
    """A :class:`Together` field's shape where it is present: never null."""
    fields_of_shape = {f.name: getattr(shape, f.name) for f in fields(Shape)}
    return Shape(**{**fields_of_shape, "nullable": False})


def read(shape: Shape, value: Any, key: str) -> Any:
    """``value`` as a field of ``shape`` (named ``key``) holds it, checked (see :func:`decode`)."""
    if value is None:
        if shape.nullable:
            return None
        raise Malformed(key, f"must be {shape.what}", value=value)
    return _read_present(shape, value, key)


def _read_present(shape: Shape, value: Any, key: str) -> Any:
    if shape.kind == "list":
        return _read_list(shape, value, key)
    if shape.kind == "record":
        assert shape.record is not None
        return decode(shape.record, value, at=key)
    if not _fits(shape, value):
        raise Malformed(key, f"must be {shape.what}", value=value)
    return value


def _fits(shape: Shape, value: Any) -> bool:
    if shape.kind == "text":
        return isinstance(value, str) and (not shape.printable or printable(value) == value)
    if shape.kind == "flag":
        return isinstance(value, bool)
    if shape.kind == "choice":
        return isinstance(value, str) and value in shape.choices
    if shape.kind == "object":
        return isinstance(value, dict)
    if isinstance(value, bool):
        return False
    if shape.kind == "number":
        return isinstance(value, (int, float))
    return isinstance(value, int) and (shape.least is None or value >= shape.least)


def _read_list(shape: Shape, value: Any, key: str) -> list[Any]:
    assert shape.item is not None
    bounds = shape.items or Items()
    if (
        not isinstance(value, list)
        or (bounds.least is not None and len(value) < bounds.least)
        or (bounds.most is not None and len(value) > bounds.most)
    ):
        raise Malformed(key, f"must be {shape.what}", value=value)
    if shape.item.kind in ("list", "record"):
        return [read(shape.item, item, f"{key}[{index}]") for index, item in enumerate(value)]
    # a wrong text or number in a list is shown with its list, which says what each must be
    if not all((item is None and shape.item.nullable) or _fits(shape.item, item) for item in value):
        raise Malformed(key, f"must be {shape.what}", value=value)
    return list(value)


# ---------------------------------------------------------------------------- projections


def projection(of: type) -> Callable[[type[T]], type[T]]:
    """A class decorator: the decorated record is a projection of the record type ``of``.

    Each of its fields must be a field of ``of`` with the same type (a ``TypeError``
    where it is defined, otherwise), so that a projection keeps some of a record's
    facts and defines none of its own.
    """

    def check(kind: type[T]) -> type[T]:
        record: type = kind
        theirs = {each.name: each.shape for each in fields_of(of)}
        for each in fields_of(record):
            if theirs.get(each.name) != each.shape:
                raise TypeError(
                    f"{kind.__name__}.{each.name} is no field of {of.__name__} of the same "
                    "type: a projection keeps the record's fields as they are"
                )
        _RECORD_OF[record] = of
        return kind

    return check


_RECORD_OF: dict[type, type] = {}  # each projection's record


def project(kind: type[T], data: Mapping[str, Any]) -> T:
    """The projection ``kind`` of an entry that :func:`encode` wrote (and that was made here, or
    read through :func:`decode`): its fields' values, their defaults where absent."""
    record: type = kind
    defaults = {each.name: each for each in fields_of(_RECORD_OF[record])}
    values = []
    for each in fields_of(record):
        if each.name not in data:
            values.append(defaults[each.name].default())
        elif each.shape.kind == "record" and data[each.name] is not None:
            assert each.shape.record is not None
            values.append(decode(each.shape.record, data[each.name], at=each.name))
        else:
            values.append(data[each.name])
    return kind(*values)


# ------------------------------------------------------------------------------- schema


def schema(kind: type, defs: dict[str, Any]) -> dict[str, Any]:
    """A reference to the JSON Schema of the record type ``kind``, which (with the records it
    holds) is added to ``defs`` under its :func:`def_name`."""
    name = def_name(kind)
    if name not in defs:
        defs[name] = {}  # taken before its fields are read: a record may hold its own kind
        defs[name] = record_schema(kind, defs)
    return {"$ref": f"#/$defs/{name}"}


def record_schema(kind: type, defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of the record type ``kind`` itself (its nested records in ``defs``)."""
    described: dict[str, Any] = {"type": "object"}
    doc = (kind.__doc__ or "").strip()
    if doc:
        described["description"] = " ".join(doc.split("\n\n")[0].split())
    described["required"] = [each.name for each in fields_of(kind) if each.required]
    together = {
        name: [other for other in group if other != name]
        for group in groups_of(kind)
        if len(group) > 1
        for name in group
    }
    if together:
        described["dependentRequired"] = together
    described["properties"] = {
        each.name: field_schema(each.shape, defs) for each in fields_of(kind)
    }
    return described


def field_schema(shape: Shape, defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a value of ``shape`` (a :class:`Together` field's where present)."""
    if shape.together is not None:
        shape = _present(shape)
    described = _schema_of(shape, defs)
    if shape.note is not None:
        described = {**described, "description": shape.note}
    return described


def _schema_of(shape: Shape, defs: dict[str, Any]) -> dict[str, Any]:
    if shape.kind == "record":
        assert shape.record is not None
        reference = schema(shape.record, defs)
        return {"oneOf": [{"type": "null"}, reference]} if shape.nullable else reference
    if shape.kind == "choice":
        if shape.named is not None:
            defs.setdefault(shape.named, {"enum": list(shape.choices)})
            reference = {"$ref": f"#/$defs/{shape.named}"}
            return {"oneOf": [{"type": "null"}, reference]} if shape.nullable else reference
        return {"enum": [*shape.choices, None] if shape.nullable else list(shape.choices)}
    described: dict[str, Any] = {"type": _JSON_TYPES[shape.kind]}
    if shape.nullable or shape.null_is_default:
        described["type"] = [described["type"], "null"]
    if shape.least is not None:
        described["minimum"] = shape.least
    if shape.kind == "list":
        assert shape.item is not None
        described["items"] = field_schema(shape.item, defs)
        if shape.items is not None and shape.items.least is not None:
            described["minItems"] = shape.items.least
        if shape.items is not None and shape.items.most is not None:
            described["maxItems"] = shape.items.most
    return described


_JSON_TYPES = {
    "text": "string",
    "whole": "integer",
    "number": "number",
    "flag": "boolean",
    "list": "array",
    "object": "object",
}


def def_name(kind: type) -> str:
    """A record type's name in ``$defs``: ``ChunkView`` is ``chunk_view``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", kind.__name__).lower()
