"""Permission classes shared by the API's views."""

from rest_framework import exceptions, permissions


class MethodAllowed(permissions.BasePermission):
    """405 for a method the view has no handler for, before any permission check answers 403:
    `PUT /api/authors/` is not allowed for anyone, curator or not."""

    def has_permission(self, request, view) -> bool:
        method = request.method.lower()
        if method not in view.http_method_names or not hasattr(view, method):
            raise exceptions.MethodNotAllowed(request.method)
        return True
