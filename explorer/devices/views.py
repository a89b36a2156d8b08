"""/devices/: the device catalogue as a table, each value with its page, sortable by column."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.shortcuts import render

from explorer.web.errors import ApiError

from .documents import COLUMNS, DevicesForm, answer


def devices_page(request):
    try:
        document = answer(request.GET)
    except ApiError as error:
        context = {"errors": error.errors, "form": DevicesForm()}
        return render(request, "devices/devices.html", context, status=400)
    ordering = request.GET.get("ordering", "")
    context = {
        "document": document,
        "form": DevicesForm(request.GET),
        "headers": headers(request.GET, ordering),
        "rows": table_rows(document),
    }
    return render(request, "devices/devices.html", context)


def table_rows(document: dict) -> list[dict]:
    """The devices with their values in column order, and their readings with the column's label
    and the page's host (the link's text): the template loops over lists instead of looking up
    and truncating 330 values (most of the page's time)."""
    labels = [(column["name"], column["label"]) for column in document["columns"]]
    return [
        {
            **device,
            "cells": [device["values"][name] for name, _ in labels],
            "readings": [
                (label, entry, urlsplit(entry["url"]).netloc)
                for name, label in labels
                if (entry := device["values"][name])
            ],
        }
        for device in document["devices"]
    ]


def headers(query, ordering: str) -> list[dict]:
    """The sortable columns: each header's link sorts by it (descending first for figures,
    flipping when already sorted by it), keeping the filters; aria-sort says the current one."""
    rows = [("name", "device"), ("vendor", "vendor")] + [(k, v[1]) for k, v in COLUMNS.items()]
    result = []
    for key, label in rows:
        first = key if key in ("name", "vendor") else f"-{key}"
        flipped = {key: f"-{key}", f"-{key}": key}
        target = flipped.get(ordering, first)
        params = query.copy()
        params["ordering"] = target
        sort = "ascending" if ordering == key else "descending" if ordering == f"-{key}" else None
        result.append({"key": key, "label": label, "query": params.urlencode(), "sort": sort})
    return result
