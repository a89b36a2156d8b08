"""Search benchmark: what a search costs, in-process, without the response cache.

    python -m bench.search_bench                         # sizes 270 and 100,000 works
    python -m bench.search_bench --sizes 270 --requests 30

For each size the corpus is built if missing (bench/synthetic.py; `manage.py migrate` brings an
older corpus to the current schema and `rebuild_search_index` fills the search index when it is
empty). Each case is one URL served by Django's test client (RESPONSE_CACHE=false:
every request filters, ranks, counts and renders), a few untimed warm-ups first, then p50/p95 of
up to --requests timed ones and the number of works the search found. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import synthetic

SIZES = {270: 0, 100_000: 1_000_000}  # works -> citation edges (0: the survey's own)
CASES = [
    ("API one word", "/api/works/?q=pipelining&page_size=50"),
    ("API common word", "/api/works/?q=gradient&page_size=50"),
    ("API two words", "/api/works/?q=distributed+training&page_size=50"),
    ("API filter+search", "/api/works/?level=train&year_min=2015&q=gradient&page_size=50"),
    ("API no match", "/api/works/?q=zzzqqq&page_size=50"),
    ("HTML /works/?q=", "/works/?q=gradient"),
    ("suggestions", "/suggest/?q=gradi"),
    ("suggestions JSON", "/api/suggest/?q=gradi"),
]
WARMUP = 3


def prepare(db: Path, works: int, edges: int) -> None:
    if not db.exists():
        synthetic.build(db, works, edges)
    synthetic.manage(db, "migrate", "--noinput")
    if (synthetic.REPO / "catalogue/management/commands/rebuild_search_index.py").exists():
        synthetic.manage(db, "rebuild_search_index", "--if-empty")  # absent before full-text


def time_case(client, url: str, requests: int) -> tuple[float, float, int, int]:
    """(p50 ms, p95 ms, status, matches) of `url`."""
    for _ in range(WARMUP):
        response = client.get(url)
    timings = []
    for _ in range(requests):
        start = time.perf_counter()
        response = client.get(url)
        timings.append((time.perf_counter() - start) * 1000)
    timings.sort()
    p95 = timings[min(len(timings) - 1, int(len(timings) * 0.95))]
    matches = -1
    if response.get("Content-Type", "").startswith("application/json"):
        document = response.json()
        matches = len(document) if isinstance(document, list) else document.get("count", -1)
    return statistics.median(timings), p95, response.status_code, matches


def run_size(db: Path, requests: int) -> None:
    """One size in a subprocess: Django is set up once per database."""
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{db}",
        "RESPONSE_CACHE": "false",
        "DEBUG": "true",  # static files by name, no collectstatic needed
        "ALLOWED_HOSTS": "testserver",
        "API_ANON_RATE": "1000000/minute",
        "DJANGO_SETTINGS_MODULE": "explorer.settings",
    }
    command = [sys.executable, "-m", "bench.search_bench", "--one", str(db)]
    command += ["--requests", str(requests)]
    subprocess.run(command, env=env, check=True, cwd=synthetic.REPO)


def title_contains_search(queryset, text: str):
    """The search before full-text search (explorer/filters.py at 6788cd0), kept here as the
    baseline: every word as a substring (icontains) of the title, authors, venue, abstract or
    note, ranked by where it occurs; no stemming, no categories or techniques."""
    import re

    from django.db.models import Case, IntegerField, Q, Value, When
    from django.db.models.functions import Coalesce

    from catalogue.models import Author, Authorship

    weights = {"title": 5, "authors": 3, "venue": 2, "abstract": 1, "note": 1}
    relevance = Value(0)
    for term in re.findall(r"[\w.+-]+", text.lower())[:8]:
        by_author = Q(
            pk__in=Authorship.objects.filter(
                author__in=Author.objects.filter(name__icontains=term)
            ).values("work_id")
        )
        fields = {
            "title": Q(title__icontains=term),
            "authors": by_author,
            "venue": Q(venue__icontains=term),
            "abstract": Q(abstract__icontains=term),
            "note": Q(note__icontains=term),
        }
        matches_any = Q()
        for condition in fields.values():
            matches_any |= condition
        queryset = queryset.filter(matches_any)
        for name, condition in fields.items():
            relevance = relevance + Case(
                When(condition, then=Value(weights[name])),
                default=Value(0),
                output_field=IntegerField(),
            )
    return queryset.annotate(relevance=Coalesce(relevance, Value(0)))


COMPARED = ["pipelining", "gradient", "distributed training", "zzzqqq"]


def compare_searches(requests: int) -> None:
    """The old and the new search side by side in one process (same load): the API's page query
    (50 rows in relevance order with COUNT(*) OVER ()), alternating old and new."""
    from django.db.models import Count, Window

    from catalogue.models import Work

    def page(queryset):
        ordered = queryset.order_by("-relevance", "survey_ref", "key").values("pk", "key")
        rows = list(ordered.annotate(matches=Window(Count("pk")))[:50])
        return rows[0]["matches"] if rows else 0

    print(f"\n{'words':<22} {'substring p50':>14} {'found':>7} {'full-text p50':>14} {'found':>7}")
    for text in COMPARED:
        timings: dict[str, list[float]] = {"old": [], "new": []}
        found = {}
        for _ in range(max(3, requests // 3)):
            for name, search in (
                ("old", lambda text=text: title_contains_search(Work.objects.all(), text)),
                ("new", lambda text=text: Work.objects.search(text)),
            ):
                start = time.perf_counter()
                found[name] = page(search())
                timings[name].append((time.perf_counter() - start) * 1000)
        old, new = (statistics.median(timings[k]) for k in ("old", "new"))
        print(f"{text:<22} {old:14.1f} {found['old']:7,} {new:14.1f} {found['new']:7,}")


def measure_one(db: Path, requests: int) -> None:
    import django

    django.setup()
    from django.test import Client

    from catalogue.models import Work

    client = Client()
    print(f"\n{db.name}: {Work.objects.count():,} works, load {os.getloadavg()[0]:.2f}")
    print(f"{'case':<20} {'p50 ms':>8} {'p95 ms':>8} {'status':>6} {'found':>7}  url")
    for name, url in CASES:
        p50, p95, status, matches = time_case(client, url, requests)
        found = "" if matches < 0 else f"{matches:,}"
        print(f"{name:<20} {p50:8.1f} {p95:8.1f} {status:>6} {found:>7}  {url}")
    compare_searches(requests)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="270,100000")
    parser.add_argument("--requests", type=int, default=30)
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        measure_one(args.one, args.requests)
        return
    for size in (int(s) for s in args.sizes.split(",")):
        db = synthetic.default_path(size)
        prepare(db, size, SIZES.get(size, 0))
        run_size(db, args.requests)


if __name__ == "__main__":
    main()
