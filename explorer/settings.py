"""Settings for Survey Explorer.

Everything that differs between a laptop and a deployment comes from environment variables,
with defaults that are safe for local development:

- DEBUG (default "true"): "false" switches on the production mode (HTTPS-only cookies, HSTS...).
- SECRET_KEY: required when DEBUG is false; a fixed development key otherwise.
- ALLOWED_HOSTS: comma-separated (default "127.0.0.1,localhost" in development).
- DATABASE_URL: e.g. postgres://postgres@127.0.0.1:5432/explorer (default: db.sqlite3 in the repo).
- DEMO_TASKS_BACKEND, DEMO_QUEUE_*, DEMO_RUNS_KEPT, DEMO_WORKER_LOST_AFTER: the demo-run queue.
- CACHE_URL: redis://host:port/db for a cache shared by several workers (default: in-process).
- The limits that bound each request's work (docs/operations.md, "Settings"): MAX_PAGE_SIZE,
  MAX_EXPORT, CITATIONS_SHOWN, GRAPH_MAX_SHOWN, DEMO_CPU_SECONDS, DEMO_MEMORY_BYTES,
  DEMO_WALL_SECONDS.
"""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_int(name: str, default: int, minimum: int = 1, maximum: int | None = None) -> int:
    """A whole number from `minimum` to `maximum`; a clear error at start-up otherwise."""
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        number = int(value.replace("_", ""))
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number (got {value!r}).") from None
    if number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum} (got {number}).")
    if maximum is not None and number > maximum:
        raise ImproperlyConfigured(f"{name} must be at most {maximum} (got {number}).")
    return number


def env_float(name: str, default: float, minimum: float = 0.0) -> float:
    """A finite number above `minimum`; a clear error at start-up otherwise."""
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number (got {value!r}).") from None
    if not minimum < number < float("inf"):
        raise ImproperlyConfigured(f"{name} must be greater than {minimum:g} (got {value}).")
    return number


DEBUG = env_bool("DEBUG", True)

_DEV_SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY", "" if not DEBUG else _DEV_SECRET_KEY)
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is false.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"] if DEBUG else [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_tasks_db",
    "catalogue",
    "explorer",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # A read-only request reads the catalogue's version once, however many parts ask.
    "explorer.web.middleware.VersionOncePerRequestMiddleware",
    # Every API answer, errors and cached ones included, names the data version it came from.
    "explorer.web.middleware.DataVersionHeaderMiddleware",
    # Every error under /api/ in one JSON shape (explorer/web/errors.py), whichever layer answered.
    "explorer.web.errors.ApiErrorMiddleware",
    "explorer.web.middleware.RejectNulBytesMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    # Innermost, so that the middlewares above add their headers to cached responses too.
    "explorer.web.middleware.AnonymousResponseCacheMiddleware",
]

ROOT_URLCONF = "explorer.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # {% url %} with its answers kept for the process (explorer/templatetags/cached_url.py)
            "builtins": ["explorer.templatetags.cached_url"],
        },
    },
]

WSGI_APPLICATION = "explorer.wsgi.application"

DATABASES = {
    # An empty DATABASE_URL (as `DATABASE_URL= make run` sets) means the default, not an error.
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    # A test database name that cannot clash with the shared `test` database on this machine.
    DATABASES["default"].setdefault("TEST", {})["NAME"] = os.environ.get(
        "TEST_DATABASE_NAME", "test_survey_explorer"
    )
elif DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Write-ahead logging: readers go on while a demo worker writes a run's progress (with the
    # default rollback journal, every heartbeat would hold every page's reads for its commit).
    DATABASES["default"].setdefault("OPTIONS", {})["init_command"] = "PRAGMA journal_mode=WAL;"
    # A file, not memory: the tests start real demo workers, which open the same database.
    DATABASES["default"].setdefault("TEST", {})["NAME"] = os.environ.get(
        "TEST_DATABASE_NAME", str(BASE_DIR / "test-db.sqlite3")
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# plotly.js is served from the installed plotly package (no CDN, no copy to keep in sync), and
# only plotly.min.js of it: its folder also holds a 5 MB widget bundle no page loads.
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "explorer.web.static_finders.PlotlyFinder",
]
# Production serves collected files (`DEBUG=false manage.py collectstatic`); development serves
# straight from the finders, with no collectstatic step.
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles")) if not DEBUG else None
WHITENOISE_USE_FINDERS = DEBUG

LOGIN_URL = "admin:login"

# Request size bounds: BibTeX uploads and API bodies larger than this are refused.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
BIBTEX_UPLOAD_MAX_BYTES = 2 * 1024 * 1024

# Security headers, on in every mode.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    # Plotly sets inline styles on the elements it draws.
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "img-src": [CSP.SELF, "data:", "blob:"],
    "font-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}

if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "explorer.web.schema.ContractSchema",
    "EXCEPTION_HANDLER": "explorer.web.errors.api_exception_handler",
    # Bodies are JSON (the schema says so, and a generated client sends it); anything else: 415.
    "DEFAULT_PARSER_CLASSES": ["explorer.web.parsers.NulFreeJSONParser"],
    # orjson (explorer/web/renderers.py): the same JSON, encoded several times faster.
    "DEFAULT_RENDERER_CLASSES": [
        "explorer.web.renderers.FastJSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "explorer.web.permissions.MethodAllowed",
        "rest_framework.permissions.DjangoModelPermissionsOrAnonReadOnly",
    ],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "explorer.web.pagination.WorkPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_CLASSES": [
        "explorer.web.throttling.AnonThrottle",
        "explorer.web.throttling.UserThrottle",
    ],
    # How many proxies stand in front of the app: 0 means the client's own address identifies it,
    # so a client cannot pick its throttling identity with a forged X-Forwarded-For.
    "NUM_PROXIES": int(os.environ.get("NUM_PROXIES", "0")),
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("API_ANON_RATE", "600/minute"),
        "user": os.environ.get("API_USER_RATE", "3000/minute"),
        "demo_run": os.environ.get("DEMO_RUN_RATE", "60/minute"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Survey Explorer API",
    "DESCRIPTION": (
        "The works, taxonomy, citation graph, Work-Depth cost models and micro-demos of "
        "Ben-Nun & Hoefler, Demystifying Parallel and Distributed Deep Learning (2018). "
        "Reading is anonymous; writes need a curator's session or token. Every error is the "
        "`Error` shape: {status, code, detail, errors}."
    ),
    # Semantic versioning (docs/api.md, "Versions and breaking changes"): 2.0.0 changed every
    # error body; 2.1.0 added `openalex_id` to the works; 2.2.0 the data releases (/api/data/, the
    # X-Data-Version header, `data_version` and `release` in /api/).
    "VERSION": "2.2.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Request bodies as their own components (no read-only id to send): generated clients work.
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI from the sidecar package: no CDN, works offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# One process: in-memory caches. Several workers or machines: a shared one (CACHE_URL=
# redis://127.0.0.1:6379/1), so that an edit made through one worker is seen by all (the cached
# citation graph, throttling counts). Three aliases, so that one kind of entry cannot crowd out
# another: a client requesting many distinct URLs fills the response cache, not the throttle
# counters (which would reset its own rate limit) nor the citation graph.
CACHE_URL = os.environ.get("CACHE_URL", "")
CACHE_ENTRIES = {
    "default": 1_000,  # the citation graph and what is derived from it (catalogue/graph_store.py)
    "responses": 300,  # whole pages and API answers, up to 2 MiB each (explorer/web/middleware.py)
    "throttle": 100_000,  # two small counters per client (explorer/web/throttling.py)
}
if CACHE_URL.startswith(("redis://", "rediss://")):
    CACHES = {
        alias: {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": f"survey-explorer-{alias}",
        }
        for alias in CACHE_ENTRIES
    }
else:
    CACHES = {
        alias: {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"survey-explorer-{alias}",
            "OPTIONS": {"MAX_ENTRIES": entries},
        }
        for alias, entries in CACHE_ENTRIES.items()
    }

# Whole responses for anonymous readers, keyed by the catalogue version (explorer/web/middleware).
# RESPONSE_CACHE=false measures the uncached cost of every request (bench/).
RESPONSE_CACHE = env_bool("RESPONSE_CACHE", True)

# Limits: every request's work is bounded (docs/operations.md, "Settings").
MAX_PAGE_SIZE = env_int("MAX_PAGE_SIZE", 500)  # works per page, on the works page and the API
MAX_EXPORT = env_int("MAX_EXPORT", 5_000)  # works per export file (BibTeX, CSV, RIS, CSL-JSON)
CITATIONS_SHOWN = env_int("CITATIONS_SHOWN", 300)  # edges per work and direction (survey: 269)
# Nodes on /graph/ (the best ranked beyond). At most 499: networkx lays out 500 nodes or more with
# scipy's sparse matrices, and scipy is not installed (catalogue/graph.py, `layout`).
GRAPH_MAX_SHOWN = env_int("GRAPH_MAX_SHOWN", 450, maximum=499)
DEMO_CPU_SECONDS = env_float("DEMO_CPU_SECONDS", 10)  # CPU time of one demo run (kernel limit)
DEMO_MEMORY_BYTES = env_int("DEMO_MEMORY_BYTES", 1_500_000_000)  # its address space
DEMO_WALL_SECONDS = env_float("DEMO_WALL_SECONDS", 15)  # its wall-clock time

# Demo runs are tasks (django.tasks). "database" (django-tasks-db) keeps the queue in DATABASE_URL's
# database, where `manage.py demo_worker` processes on any machine take runs from it; "immediate"
# runs a task inside the request that enqueues it (the unit tests use it).
TASK_BACKENDS = {
    "database": "django_tasks_db.DatabaseBackend",
    "immediate": "django.tasks.backends.immediate.ImmediateBackend",
}
DEMO_TASKS_BACKEND = os.environ.get("DEMO_TASKS_BACKEND", "database")
if DEMO_TASKS_BACKEND not in TASK_BACKENDS:
    raise ImproperlyConfigured(f"DEMO_TASKS_BACKEND must be one of {', '.join(TASK_BACKENDS)}.")
TASKS = {"default": {"BACKEND": TASK_BACKENDS[DEMO_TASKS_BACKEND], "QUEUES": ["default"]}}

# Runs waiting or running, per client and in all: one more gets a 429 with Retry-After.
DEMO_QUEUE_PER_CLIENT = env_int("DEMO_QUEUE_PER_CLIENT", 5)
DEMO_QUEUE_TOTAL = env_int("DEMO_QUEUE_TOTAL", 500)
# Finished runs kept at most (the oldest go first); `manage.py prune_demo_runs` removes by age.
DEMO_RUNS_KEPT = env_int("DEMO_RUNS_KEPT", 20_000)
# A running run whose worker has not written a heartbeat (every second) for this long lost its
# worker (killed, machine gone): it is retried once, then fails with "worker lost".
DEMO_WORKER_LOST_AFTER = env_float("DEMO_WORKER_LOST_AFTER", 10, minimum=1)
DEMO_RUN_ATTEMPTS = env_int("DEMO_RUN_ATTEMPTS", 2)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

# Where `manage.py release` cuts the catalogue's releases and /data/ serves them from (issue 45):
# the repository's releases/ folder, so that the first release ships with the code.
RELEASES_DIR = Path(os.environ.get("RELEASES_DIR") or BASE_DIR / "releases")
