"""The rows of a big changelist (lib.admin_lists.BigTableAdmin): the cells Django's
items_for_result renders, with what each column needs (field or display method, empty
value, CSS classes, link) looked up once per page instead of once per cell.

At six months a scrape-run page's 50 rows × 13 columns were two thirds of its time, the
per-cell lookups a good part of it. Lists this does not cover (list_editable, popups,
columns that are neither a model field nor a display method of the admin) get Django's
own rows. operations/tests/test_admin_rows.py holds both to the same HTML.
"""

import datetime

from django.contrib.admin.templatetags.admin_list import ResultList, items_for_result
from django.contrib.admin.utils import display_for_field, display_for_value
from django.core.exceptions import FieldDoesNotExist, ObjectDoesNotExist
from django.db import models
from django.urls import NoReverseMatch
from django.utils.html import conditional_escape, escape
from django.utils.safestring import SafeString


class NotCovered(Exception):
    """A column Django's own items_for_result must render."""


class Column:
    """One column of list_display: how items_for_result reads and renders a row's value."""

    def __init__(self, changelist, name):
        admin = changelist.model_admin
        self.name = name
        self.missing = self.empty = admin.get_empty_value_display()
        self.field = self.method = self.choices = None
        self.boolean = self.is_fk = False
        try:
            field = _plain_field(changelist.lookup_opts, name)
        except FieldDoesNotExist:
            field = None
        nowrap = False
        if field is not None:
            # Auto-created fields (the implicit id) are rendered as plain values, as Django does.
            if not field.auto_created:
                self.field = field
                self.is_fk = isinstance(field.remote_field, models.ManyToOneRel)
                nowrap = isinstance(field, (models.DateField, models.TimeField, models.ForeignKey))
                self.choices = _choices(field)
            self.read = lambda row: getattr(row, name)
        elif isinstance(name, str) and name != "__str__" and callable(getattr(admin, name, None)):
            self.method = getattr(admin, name)
            self.empty = getattr(self.method, "empty_value_display", self.empty)
            self.boolean = getattr(self.method, "boolean", False)
            self.read = self.method
        else:
            raise NotCovered(name)
        base = "action-checkbox" if name == "action_checkbox" and field is None else f"field-{name}"
        self.css = SafeString(f' class="{base}"')
        self.css_nowrap = SafeString(f' class="{base} nowrap"')
        self.css_field = self.css_nowrap if nowrap else self.css
        self.css_missing = SafeString(f' class="field-{name}"')

    def cell(self, row, link):
        """(class attribute, content) of this column's cell in `row`."""
        try:
            value = self.read(row)
        except ObjectDoesNotExist:
            return self.css_missing, self.missing
        if isinstance(value, str) and value.strip() == "":
            value = ""
        if self.field is None:
            css = self.css_nowrap if isinstance(value, (datetime.date, datetime.time)) else self.css
            return css, display_for_value(value, self.empty, self.boolean)
        if self.is_fk:
            return self.css_field, self.empty if value is None else value
        if self.choices is not None:
            return self.css_field, self.choices.get(value, self.empty)
        return self.css_field, display_for_field(value, self.field, self.empty, avoid_link=link)


def _choices(field):
    """display_for_field's {value: label} of a field with choices, built once (it builds it per cell)."""
    if not getattr(field, "flatchoices", None):
        return None
    try:
        return dict(field.flatchoices)
    except TypeError:
        return None  # list-like choices: display_for_field's own path


def _plain_field(opts, name):
    """The field lookup_field finds for `name` (admin.utils._get_non_gfk_field), or FieldDoesNotExist."""
    if not isinstance(name, str):
        raise FieldDoesNotExist(name)
    field = opts.get_field(name)
    if field.is_relation and ((field.many_to_one and not field.related_model) or field.one_to_many):
        raise FieldDoesNotExist(name)
    if field.is_relation and not field.many_to_many and getattr(field, "attname", None) == name:
        raise FieldDoesNotExist(name)  # `<fk>_id`: Django reads it as an attribute
    return field


def rows(changelist):
    """The rows for admin/change_list_results.html, as admin_list.results(changelist) makes them."""
    columns = _columns(changelist)
    if columns is None:
        return [
            ResultList(None, items_for_result(changelist, row, None))
            for row in changelist.result_list
        ]
    names = [c.name for c in columns]
    links = changelist.list_display_links
    if links is None:
        linked = []
    elif links:
        linked = [name for name in names if name in links]
    else:
        linked = names[:1]
    return [
        ResultList(None, _cells(changelist, columns, row, linked)) for row in changelist.result_list
    ]


def _columns(changelist):
    if changelist.formset or changelist.is_popup:
        return None
    try:
        return [Column(changelist, name) for name in changelist.list_display]
    except NotCovered:
        return None


def _cells(changelist, columns, row, linked):
    cells = []
    for column in columns:
        is_link = column.name in linked
        css, content = column.cell(row, is_link)
        content = conditional_escape(content)
        if not is_link:
            cells.append(SafeString(f"<td{css}>{content}</td>"))
            continue
        tag = "th" if column.name == linked[0] else "td"
        try:
            content = f'<a href="{escape(changelist.url_for_result(row))}">{content}</a>'
        except NoReverseMatch:
            pass
        cells.append(SafeString(f"<{tag}{css}>{content}</{tag}>"))
    return cells
