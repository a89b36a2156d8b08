"""/api/schema/: drf-spectacular's view, its answer kept per catalogue version."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.views import SpectacularAPIView

from explorer.web.memo import per_version


class SchemaView(SpectacularAPIView):
    """/api/schema/, built and rendered once per catalogue version and format: generating it
    walks every endpoint (a quarter of a second) and its enums read the catalogue (category
    codes a curator may add), so the catalogue's version keys it."""

    def _get_schema_response(self, request):
        if set(request.query_params) - {"format"}:  # ?lang=, ?version=: built each time
            return super()._get_schema_response(request)
        media_type = request.accepted_media_type
        renderer = request.accepted_renderer

        def rendered() -> bytes:
            response = super(SchemaView, self)._get_schema_response(request)
            context = {"request": request, "view": self, "response": response}
            return renderer.render(response.data, media_type, context)

        content = per_version(f"openapi-schema:{media_type}", rendered)
        content_type = (
            f"{media_type}; charset={renderer.charset}" if renderer.charset else media_type
        )
        filename = self._get_filename(request, self.api_version or request.version)
        return HttpResponse(
            content,
            content_type=content_type,
            headers={"Content-Disposition": f'inline; filename="{filename}"'},
        )
