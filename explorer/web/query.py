"""The query parameters of an API view: declared once, as a form (explorer/web/forms.py's
QueryForm), checked before the view runs, listed in the OpenAPI schema (explorer/web/schema.py).

A view names its form in `query_form` (what its GET, or a viewset's list, reads); any other
action (a viewset's retrieve) reads none. An unknown or a repeated parameter is a 400 (code
"invalid", errors keyed by the parameter) from the form's own cleaning, so that the page and
its JSON twin refuse the same queries in the same words.
"""

from __future__ import annotations

from rest_framework.permissions import SAFE_METHODS

from explorer.web.errors import ApiError
from explorer.web.forms import NoParameters, QueryForm
from explorer.web.words import echoed

LIST_ACTIONS = frozenset({None, "list"})  # an APIView's GET has no action


class DeclaredQuery:
    """An API view whose GET reads the parameters of its `query_form` and no others."""

    query_form: type[QueryForm] = NoParameters

    def get_query_form_class(self) -> type[QueryForm]:
        return self.query_form if getattr(self, "action", None) in LIST_ACTIONS else NoParameters

    def initial(self, request, *args, **kwargs) -> None:
        # Before DRF's content negotiation, which answers an unknown ?format= with a 404.
        if request.method in SAFE_METHODS:
            form = self.get_query_form_class()(request.query_params)
            self.declared_query = form  # the request's one form: the view reads it too
            errors = form.parameter_errors() | self.format_errors(form, request)
            if errors:
                raise ApiError(errors)
        super().initial(request, *args, **kwargs)

    def format_errors(self, form: QueryForm, request) -> dict[str, list[str]]:
        """?format= is DRF's renderer choice unless the form declares it (the graph's own)."""
        given = request.query_params.get("format")
        if not given or "format" in form.fields:  # ?format= (empty): DRF ignores it too
            return {}
        formats = [renderer.format for renderer in self.get_renderers()]
        if given in formats:
            return {}
        return {"format": [f"format must be one of {', '.join(formats)} (got {echoed(given)})"]}
