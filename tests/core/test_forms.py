"""The MCP elicitation schema (`auger.core.forms`): every field type and constraint the
specification allows, read into fields and checked, with the field named in each problem."""

from __future__ import annotations

import pytest

from auger.core.forms import check_form, describe, form_fields

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2, "maxLength": 5},
        "email": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "at": {"type": "string", "format": "date-time"},
        "age": {"type": "integer", "minimum": 0, "maximum": 130},
        "ratio": {"type": "number", "minimum": 0.5, "maximum": 1.5},
        "ok": {"type": "boolean", "default": True},
        "size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
    },
    "required": ["name", "size"],
}


def test_the_fields_of_a_schema() -> None:
    fields = {f.name: f for f in form_fields(SCHEMA)}
    assert [f.name for f in fields.values()] == list(SCHEMA["properties"])  # type: ignore[arg-type]
    assert fields["name"].label == "Name" and fields["name"].required and fields["email"].label == "email"
    assert fields["size"].kind == "enum" and fields["size"].choices == [("s", "Small"), ("m", "Medium")]
    assert fields["ok"].default is True and fields["ratio"].minimum == 0.5
    assert fields["age"].parse("42") == 42 and fields["ratio"].parse("1.25") == 1.25
    with pytest.raises(ValueError, match="must be a whole number"):
        fields["age"].parse("4.5")


@pytest.mark.parametrize(("names", "shown"), [(["A"], ["A", "b"]), (["A", "B", "C"], ["A", "B"])])
def test_enum_names_that_do_not_match_the_values_in_number(names: list[str], shown: list[str]) -> None:
    """A server's `enumNames` one short or one too many: the values it has no name for show as
    they are, names with no value are left out (the form was refused, with a zip() error)."""
    schema = {
        "type": "object",
        "properties": {"c": {"type": "string", "enum": ["a", "b"], "enumNames": names}},
    }
    assert [label for _, label in form_fields(schema)[0].choices] == shown
    assert check_form(schema, {"c": "b"}) == {}


def test_content_that_fits_and_content_that_does_not() -> None:
    good = {"name": "Ann", "email": "a@b.io", "site": "https://x.org", "born": "1990-02-03"}
    good |= {"at": "2026-12-01T20:00:00", "age": 30, "ratio": 1, "ok": False, "size": "m"}
    assert check_form(SCHEMA, good) == {}
    assert check_form(SCHEMA, {"name": "Ann", "size": "s"}) == {}  # the optional ones left out
    bad = {"name": "A", "email": "nope", "site": "x", "born": "03/02/1990", "at": "soon"}
    bad |= {"age": True, "ratio": 2, "ok": "yes", "more": 1}
    assert check_form(SCHEMA, bad) == {
        "more": "is not a field of this form",
        "name": "must be at least 2 characters",
        "email": "must be an email address",
        "site": "must be a URI (like https://example.com)",
        "born": "must be a date (YYYY-MM-DD)",
        "at": "must be a date and time (ISO 8601)",
        "age": "must be a whole number",
        "ratio": "must be at most 1.5",
        "ok": "must be true or false",
        "size": "is required",
    }
    assert check_form(SCHEMA, {"name": "Annabel", "size": "xl"}) == {
        "name": "must be at most 5 characters",
        "size": "must be one of s, m",
    }
    assert describe({"age": "must be at least 18"}) == "Field 'age': must be at least 18."


def test_a_schema_no_form_can_show() -> None:
    with pytest.raises(ValueError, match="property 'address' has type 'object'"):
        form_fields({"type": "object", "properties": {"address": {"type": "object"}}})
    assert check_form({"type": "array"}, {}) == {"": "the requested schema is not an object"}
    assert check_form(SCHEMA, ["Ann"]) == {"": "the content must be an object"}
