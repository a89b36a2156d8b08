"""/api/: every endpoint of the JSON API, read from the URLconf itself, so that none is missing
(the router's own root listed only the six viewsets it registers)."""

from __future__ import annotations

import re

from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from catalogue.release.shelf import CHECKSUMS, MANIFEST, data_version, latest
from explorer.web.links import link

PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>[^)]*\)")


def api_routes(patterns=None, prefix: str = "") -> list[tuple[str, str]]:
    """(path with {parameters}, URL name) of every route under /api/, in URLconf order."""
    routes = []
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(pattern.pattern).lstrip("^").rstrip("$")
        if isinstance(pattern, URLResolver):
            routes.extend(api_routes(pattern.url_patterns, route))
        elif isinstance(pattern, URLPattern) and route.startswith("api/"):
            if "format" in route or not pattern.name:
                continue  # the routers' ".json" twins of each path
            path = "/" + PARAMETER.sub(lambda m: "{" + (m.group(1) or m.group(2)) + "}", route)
            routes.append((path.replace("\\.", "."), pattern.name))
    return list(dict.fromkeys(routes))


@extend_schema(summary="Every endpoint of the API", exclude=True)
@api_view(["GET"])
@permission_classes([AllowAny])
def api_root(request):
    endpoints = [
        {
            "name": name,
            "path": path,
            "url": request.build_absolute_uri(path) if "{" not in path else None,
        }
        for path, name in api_routes()
    ]
    return Response(
        {
            "endpoints": endpoints,
            "schema": request.build_absolute_uri("/api/schema/"),
            "data_version": data_version(check=True),
            "release": current_release(request),
        }
    )


def current_release(request) -> dict | None:
    """The latest release's version, date and file URLs (its page: /data/)."""
    manifest = latest()
    if manifest is None:
        return None
    version = manifest["version"]

    def url(name: str) -> str:
        return request.build_absolute_uri(link("releases:download", version, name))

    return {
        "version": version,
        "date": manifest["date"],
        "page": request.build_absolute_uri(link("releases:data")),
        "files": {entry["kind"]: url(entry["name"]) for entry in manifest["files"]},
        "manifest": url(MANIFEST),
        "checksums": url(CHECKSUMS),
    }
