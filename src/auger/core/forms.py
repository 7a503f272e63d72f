"""The forms an MCP server may ask the user to fill in (`elicitation/create`): the restricted JSON
schema the MCP specification allows, read into fields, and content checked against it.

A schema is a flat object: each property a string (`minLength`, `maxLength`, `format` email | uri
| date | date-time), a number or integer (`minimum`, `maximum`), a boolean, or a string `enum`
(with `enumNames` to show); `required` lists the properties that must be given. `form_fields`
reads one (ValueError naming the property it cannot show), `check_form` returns what is wrong
with some content, by field, and `FormField.parse` turns what a user typed into the value.
Standard library only: front ends use it through `auger.core.port`.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["string", "number", "integer", "boolean", "enum"]
FORMATS = ("email", "uri", "date", "date-time")
_NOT_A_NUMBER = {"integer": "must be a whole number", "number": "must be a number"}
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")


@dataclass(frozen=True)
class FormField:
    name: str
    kind: Kind
    label: str  # the property's title, else its name
    description: str = ""
    required: bool = False
    choices: list[tuple[str, str]] = field(default_factory=list)  # enum: (value, what to show)
    default: Any = None
    min_length: int | None = None
    max_length: int | None = None
    format: str | None = None
    minimum: float | None = None
    maximum: float | None = None

    def parse(self, text: str) -> Any:
        """The value a user typed for this (string or number) field; ValueError says what is wrong."""
        if self.kind == "string" or text.strip() == "":
            return text
        try:
            if self.kind == "integer":
                return int(text.strip())
            number = float(text)
        except ValueError:
            raise ValueError(_NOT_A_NUMBER[self.kind]) from None
        return int(number) if number.is_integer() and not any(c in text for c in ".eE") else number

    def problem(self, value: Any) -> str | None:
        """What is wrong with `value` for this field (None: it fits)."""
        return _CHECKS[self.kind](self, value)


def form_fields(schema: dict[str, Any]) -> list[FormField]:
    """The fields of a requested schema, in its order; ValueError names what cannot be shown."""
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        raise ValueError("the requested schema is not an object")
    properties = schema.get("properties") or {}
    if not isinstance(properties, dict):
        raise ValueError("the requested schema's 'properties' is not an object")
    required = schema.get("required") or []
    return [_field(str(name), spec, name in required) for name, spec in properties.items()]


def check_form(schema: dict[str, Any], content: Any) -> dict[str, str]:
    """What is wrong with `content` (an accepted form), by field name; empty: it fits the schema.
    A problem with the whole content is under the key ""."""
    try:
        fields = form_fields(schema)
    except ValueError as exc:
        return {"": str(exc)}
    if not isinstance(content, dict):
        return {"": "the content must be an object"}
    known = {f.name for f in fields}
    errors = {str(name): "is not a field of this form" for name in content if name not in known}
    for f in fields:
        if content.get(f.name) is None:
            if f.required:
                errors[f.name] = "is required"
        elif (problem := f.problem(content[f.name])) is not None:
            errors[f.name] = problem
    return errors


def describe(errors: dict[str, str]) -> str:
    """One line for `check_form`'s errors: "Field 'age': must be at least 0; field 'email': ..."."""
    parts = [f"field {name!r}: {text}" if name else text for name, text in errors.items()]
    line = "; ".join(parts)
    return line[:1].upper() + line[1:] + "."


def _field(name: str, spec: Any, required: bool) -> FormField:
    if not isinstance(spec, dict):
        raise ValueError(f"property {name!r} of the requested schema is not an object")
    spec = _without_null(spec)
    kind = spec.get("type")
    if "enum" in spec:
        kind = "enum"
    if kind not in ("string", "number", "integer", "boolean", "enum"):
        raise ValueError(
            f"property {name!r} has type {kind!r}; a form takes string, number, integer, boolean"
        )
    values = [str(v) for v in spec.get("enum") or []]
    names = [str(v) for v in spec.get("enumNames") or values]
    fmt = spec.get("format")
    return FormField(
        name=name,
        kind=kind,
        label=str(spec.get("title") or name),
        description=str(spec.get("description") or ""),
        required=required,
        choices=list(zip(values, names[: len(values)] + values[len(names) :], strict=True)),
        default=spec.get("default"),
        min_length=_number(spec, "minLength", int),
        max_length=_number(spec, "maxLength", int),
        format=fmt if fmt in FORMATS else None,
        minimum=_number(spec, "minimum", float),
        maximum=_number(spec, "maximum", float),
    )


def _without_null(spec: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [{type: X}, {type: null}]` (an optional field, as Pydantic writes it) read as X."""
    branches = [b for b in spec.get("anyOf") or [] if isinstance(b, dict) and b.get("type") != "null"]
    if len(branches) != 1:
        return spec
    return {**{k: v for k, v in spec.items() if k != "anyOf"}, **branches[0]}


def _number(spec: dict[str, Any], key: str, cls: type) -> Any:
    value = spec.get(key)
    return cls(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _string(f: FormField, value: Any) -> str | None:
    if not isinstance(value, str):
        return "must be text"
    if f.min_length is not None and len(value) < f.min_length:
        return f"must be at least {f.min_length} characters"
    if f.max_length is not None and len(value) > f.max_length:
        return f"must be at most {f.max_length} characters"
    return _format(f.format, value) if value else None


def _format(fmt: str | None, value: str) -> str | None:
    if fmt == "email" and not _EMAIL.match(value):
        return "must be an email address"
    if fmt == "uri" and not _URI.match(value):
        return "must be a URI (like https://example.com)"
    parse = {"date": datetime.date.fromisoformat, "date-time": datetime.datetime.fromisoformat}.get(fmt or "")
    if parse is not None:
        try:
            parse(value)
        except ValueError:
            return "must be a date (YYYY-MM-DD)" if fmt == "date" else "must be a date and time (ISO 8601)"
    return None


def _numeric(f: FormField, value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return _NOT_A_NUMBER[f.kind]
    if f.kind == "integer" and not float(value).is_integer():
        return "must be a whole number"
    if f.minimum is not None and value < f.minimum:
        return f"must be at least {f.minimum:g}"
    if f.maximum is not None and value > f.maximum:
        return f"must be at most {f.maximum:g}"
    return None


def _boolean(f: FormField, value: Any) -> str | None:
    return None if isinstance(value, bool) else "must be true or false"


def _enum(f: FormField, value: Any) -> str | None:
    values = [v for v, _ in f.choices]
    return None if value in values else f"must be one of {', '.join(values)}"


_CHECKS = {"string": _string, "number": _numeric, "integer": _numeric, "boolean": _boolean, "enum": _enum}
