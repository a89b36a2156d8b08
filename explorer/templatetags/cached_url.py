"""{% url %} as Django's, with its answers kept for the process (a template builtin: every
template gets it without a load).

reverse() costs about 20 microseconds, and pages link a lot: /techniques/ has about 140 links,
every page 17 in its menu. The URLs do not change while the process runs, so a URL name with
the same arguments (strings and numbers only), the same current app, script prefix and URLconf
gives the same path: it is reversed once (explorer/web/links.py's cache, which `link` uses too).
Anything else goes through Django's own tag.
"""

from __future__ import annotations

from django import template
from django.conf import settings
from django.template import defaulttags
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf
from django.utils.html import conditional_escape

from explorer.web.links import SIMPLE, cached_reverse

register = template.Library()


class CachedURLNode(defaulttags.URLNode):
    def render(self, context):
        args = tuple(arg.resolve(context) for arg in self.args)
        kwargs = tuple((k, v.resolve(context)) for k, v in self.kwargs.items())
        view_name = self.view_name.resolve(context)
        values = (*args, *(v for _, v in kwargs))
        if not isinstance(view_name, str) or not all(type(v) in SIMPLE for v in values):
            return super().render(context)
        try:
            current_app = context.request.current_app
        except AttributeError:
            try:
                current_app = context.request.resolver_match.namespace
            except AttributeError:
                current_app = None
        url = ""
        try:
            urlconf = get_urlconf() or settings.ROOT_URLCONF  # tests may change it
            url = cached_reverse(view_name, args, kwargs, current_app, get_script_prefix(), urlconf)
        except NoReverseMatch:
            if self.asvar is None:
                raise
        if self.asvar:
            context[self.asvar] = url
            return ""
        return conditional_escape(url) if context.autoescape else url


@register.tag
def url(parser, token):
    node = defaulttags.url(parser, token)
    node.__class__ = CachedURLNode
    return node
