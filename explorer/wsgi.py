"""
WSGI config for explorer project.

It exposes the WSGI callable as a module-level variable named ``application``.

For more information on this file, see
https://docs.djangoproject.com/en/6.1/howto/deployment/wsgi/
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "explorer.settings")

application = get_wsgi_application()

# A serving process keeps its memos out of the collector's full walks (explorer/web/memory.py).
from explorer.web.memory import freeze_as_it_warms  # noqa: E402  (after Django is set up)

freeze_as_it_warms()
