"""Build a corpus for the benchmarks in its own SQLite file, through the app's real schema.

    python -m bench.synthetic --works 100000 --edges 1000000 --db bench/data/synthetic-100k.sqlite3
    python -m bench.synthetic --works 270 --db bench/data/synthetic-270.sqlite3  # the survey only

The file is migrated and loaded with the real survey (`manage.py migrate`, `manage.py load_survey`)
by subprocesses whose DATABASE_URL points at it. Synthetic works, authors, authorships, assignments
and citations are then inserted in bulk with sqlite3, with foreign keys and every CHECK and UNIQUE
constraint of the schema enforced; a sample of the new rows is then validated with the models'
full_clean(). The distributions (categories, evidence levels, entry types and venues, authors per
work, citation provenance) are measured on the real survey rows; titles come from a deep-learning
vocabulary, so that a search hits about the same fraction of works as on the real survey.

`--works` and `--edges` are totals, the real survey's rows included. The build writes to a
temporary file renamed at the end: a failed build leaves no half-built corpus behind. Same
arguments and seed, same corpus.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "bench" / "data"
FIRST_YEAR, LAST_YEAR = 1986, 2018
AUTHOR_POOL = 50_000
MAX_REFERENCES = 300  # the longest reference list a synthetic work gets
ABSTRACT_FRACTION = 0.2
TABLES = [
    "catalogue_work",
    "catalogue_author",
    "catalogue_authorship",
    "catalogue_category",
    "catalogue_assignment",
    "catalogue_citation",
]

ADJECTIVES = [
    "Scalable", "Distributed", "Parallel", "Efficient", "Asynchronous", "Synchronous",
    "Communication-Efficient", "Large-Scale", "Fast", "Adaptive", "Decentralized",
    "Energy-Efficient", "Robust", "Elastic", "Hierarchical", "Low-Precision", "Sparse",
    "Quantized", "Deep", "Accelerated", "Memory-Efficient", "Fault-Tolerant", "Heterogeneous",
    "Federated", "Stale-Synchronous", "Lock-Free", "Multi-GPU", "Pipelined", "Massively Parallel",
    "Bandwidth-Optimal", "Topology-Aware", "Practical",
]  # fmt: skip
MODELS = [
    "Neural Networks", "Deep Neural Networks", "Convolutional Neural Networks",
    "Recurrent Neural Networks", "LSTM Networks", "Deep Belief Networks", "Autoencoders",
    "Residual Networks", "Generative Adversarial Networks", "Sequence-to-Sequence Models",
    "Attention Models", "Word Embeddings", "Restricted Boltzmann Machines",
    "Spiking Neural Networks", "Language Models", "Capsule Networks", "Mixture-of-Experts Layers",
    "Deep Q-Networks", "Binary Neural Networks", "Multilayer Perceptrons",
]  # fmt: skip
METHODS = [
    "Stochastic Gradient Descent", "Gradient Compression", "Gradient Quantization",
    "Backpropagation", "Model Averaging", "Parameter Servers", "Allreduce", "Data Parallelism",
    "Model Parallelism", "Pipeline Parallelism", "Hybrid Parallelism", "Batch Normalization",
    "Dropout", "Large Minibatch Training", "Knowledge Distillation", "Weight Pruning",
    "Low-Rank Factorization", "Winograd Convolution", "FFT-Based Convolution", "Im2col Lowering",
    "Neural Architecture Search", "Hyperparameter Optimization", "Evolutionary Search",
    "Bayesian Optimization", "Elastic Averaging", "Gossip Algorithms", "Momentum Methods",
    "Second-Order Optimization", "Mixed-Precision Training", "Ensemble Learning",
    "Transfer Learning", "Consensus Optimization", "Local SGD", "Gradient Sparsification",
    "Tensor Decomposition", "Operator Fusion", "Learning Rate Schedules", "Weight Sharing",
    "Gradient Descent", "Natural Gradient Methods", "Asynchronous Gradient Updates",
    "Gradient Accumulation",
]  # fmt: skip
TASKS = [
    "Image Classification", "Speech Recognition", "Machine Translation", "Object Detection",
    "Language Modeling", "Reinforcement Learning", "Recommendation Systems",
    "Semantic Segmentation", "Video Recognition", "Text Classification", "Handwriting Recognition",
    "Drug Discovery", "Climate Modeling", "Question Answering", "Face Recognition",
]  # fmt: skip
PLATFORMS = [
    "GPU Clusters", "Supercomputers", "Multicore CPUs", "FPGAs", "Mobile Devices",
    "Commodity Clusters", "Heterogeneous Systems", "Cloud Platforms", "Many-Core Processors",
    "Edge Devices", "InfiniBand Networks", "Tensor Processing Units", "Xeon Phi",
    "Shared-Memory Machines", "Neuromorphic Hardware",
]  # fmt: skip
NOUNS = [
    "Convergence", "Scalability", "Generalization", "Communication Complexity", "Performance",
    "Accuracy", "Efficiency", "Staleness", "Variance", "Robustness", "Limits", "Energy Cost",
]  # fmt: skip
TEMPLATES = [
    "{adj} {method} for {model}",
    "{adj} {method} on {platform}",
    "{method} for {task}",
    "{adj} {model} for {task}",
    "Training {model} with {method}",
    "On the {noun} of {adj} {method}",
    "{name}: {adj} {method} for {model}",
    "{name}: {adj} Training of {model} on {platform}",
    "Scaling {method} to {platform}",
    "{adj} Training of {model} on {platform}",
    "Understanding {method} in {model}",
    "Towards {adj} {model}",
    "{method} Revisited",
    "{model} for {task} on {platform}",
]
ABSTRACT = (
    "We study {method_l} for {model_l} on {platform_l}. Our {adj_l} approach reduces the "
    "{noun_l} overhead of {method2_l} and reaches a {speedup}x speedup for {task_l}, "
    "with accuracy comparable to {model2_l} trained on a single node."
)
SYLLABLES = [
    "ka", "mi", "ro", "ta", "ne", "li", "so", "ve", "da", "ru", "shi", "chen", "wang", "li",
    "zhou", "ber", "gen", "son", "man", "mar", "tin", "ez", "ov", "ski", "ler", "berg", "ha",
    "yo", "ni", "ko", "ra", "el", "an", "den", "dr", "ia", "no", "va", "ma", "tsu", "ng", "lu",
]  # fmt: skip
INITIALS = "ABCDEFGHIJKLMNOPRSTVWXYZ"
# Authors per work 1..8: the real survey's counts (works with more are rare and kept as 8).
AUTHOR_COUNT_FALLBACK = [65, 52, 49, 52, 17, 12, 9, 6]


@dataclass
class Profile:
    """What the synthetic rows imitate, measured on the real survey rows."""

    leaf_ids: list[int]
    leaf_weights: np.ndarray
    evidence: list[str]
    evidence_weights: np.ndarray
    provenance: list[str]
    provenance_weights: np.ndarray
    venues: list[tuple[str, str, str, str, str]]
    author_count_weights: np.ndarray
    surnames: list[str]


@dataclass
class BuildReport:
    path: Path
    seconds_schema: float
    seconds_synthetic: float
    seconds_check: float
    counts: dict[str, int]
    size_bytes: int
    search_fraction: float

    def lines(self) -> list[str]:
        total = self.seconds_schema + self.seconds_synthetic + self.seconds_check
        counts = ", ".join(f"{t.removeprefix('catalogue_')} {n:,}" for t, n in self.counts.items())
        return [
            f"corpus {self.path.name}: {counts}",
            f"  {self.size_bytes / 2**20:,.0f} MiB; titles matching 'gradient': "
            f"{self.search_fraction:.1%}",
            f"  built in {total:.1f} s (migrate + load_survey {self.seconds_schema:.1f} s, "
            f"synthetic rows {self.seconds_synthetic:.1f} s, checks {self.seconds_check:.1f} s)",
        ]


def build(db: Path, works: int, edges: int, seed: int = 1) -> BuildReport:
    """Build the corpus at `db` (replacing it): the real survey, then synthetic rows up to the
    requested totals."""
    db = db.resolve()
    db.parent.mkdir(parents=True, exist_ok=True)
    building = db.with_name(db.name + ".building")
    _remove(building)
    started = time.perf_counter()
    try:
        manage(building, "migrate", "--noinput", "-v", "0")
        manage(building, "load_survey")
        schema_done = time.perf_counter()
        with connect_for_build(building) as conn:
            profile = measure_profile(conn)
            add_synthetic(conn, profile, works, edges, seed)
        manage(building, "rebuild_search_index")  # the rows above bypassed the ORM's signals
        synthetic_done = time.perf_counter()
        check(building, sample=50, seed=seed)
        checked = time.perf_counter()
    except BaseException:
        _remove(building)
        raise
    with sqlite3.connect(building) as conn:
        counts = {t: conn.execute(f"select count(*) from {t}").fetchone()[0] for t in TABLES}
        hits = conn.execute("select avg(title like '%gradient%') from catalogue_work").fetchone()[0]
    conn.close()
    _remove(db)
    os.replace(building, db)
    return BuildReport(
        path=db,
        seconds_schema=schema_done - started,
        seconds_synthetic=synthetic_done - schema_done,
        seconds_check=checked - synthetic_done,
        counts=counts,
        size_bytes=db.stat().st_size,
        search_fraction=hits or 0.0,
    )


def _remove(path: Path) -> None:
    for candidate in (path, Path(f"{path}-journal"), Path(f"{path}-wal"), Path(f"{path}-shm")):
        candidate.unlink(missing_ok=True)


def manage(db: Path, *args: str) -> None:
    """Run a manage.py command against the SQLite file `db`."""
    manage_url(f"sqlite:///{db}", *args)


def manage_url(database_url: str, *args: str) -> None:
    """Run a manage.py command against the database at `database_url`."""
    env = {**os.environ, "DATABASE_URL": database_url, "DEBUG": "true"}
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stdout}{result.stderr}")


class connect_for_build:
    """A connection tuned for one bulk load: no journal (the file is temporary until renamed),
    foreign keys on, everything in one transaction."""

    def __init__(self, path: Path):
        self.conn = sqlite3.connect(path, isolation_level=None)

    def __enter__(self) -> sqlite3.Connection:
        for pragma in ("journal_mode = OFF", "synchronous = OFF", "foreign_keys = ON"):
            self.conn.execute(f"pragma {pragma}")
        self.conn.execute("pragma cache_size = -262144")  # 256 MiB
        self.conn.execute("begin")
        return self.conn

    def __exit__(self, kind, value, traceback) -> None:
        try:
            self.conn.execute("commit" if kind is None else "rollback")
        finally:
            self.conn.close()


def measure_profile(conn: sqlite3.Connection) -> Profile:
    categories = conn.execute("select id, parent_id from catalogue_category").fetchall()
    parent_of = dict(categories)
    children: dict[int, list[int]] = {}
    for pk, parent in categories:
        children.setdefault(parent, []).append(pk)
    leaves = sorted(pk for pk, _ in categories if pk not in children)
    weight = dict.fromkeys(leaves, 1.0)  # +1: every leaf gets a few works
    for category_id, n in conn.execute(
        "select category_id, count(*) from catalogue_assignment "
        "where work_id in (select id from catalogue_work where era = 'survey') group by category_id"
    ):
        # An assignment to an inner node is spread over the node's leaves.
        below = [leaf for leaf in leaves if category_id in _ancestors(leaf, parent_of)]
        for leaf in below:
            weight[leaf] += n / len(below)
    evidence = conn.execute(
        # Synthetic works are of the survey's era (years to 2018): its works' evidence mix.
        "select evidence, count(*) from catalogue_assignment "
        "where work_id in (select id from catalogue_work where era = 'survey') "
        "group by 1 order by 1"
    ).fetchall()
    provenance = conn.execute(
        "select provenance, count(*) from catalogue_citation "
        "where provenance not in ('survey-reference-list', 'curator') group by 1 order by 1"
    ).fetchall() or [("citing-paper-bibliography", 1)]
    venues = conn.execute(
        "select entry_type, journal, booktitle, venue, publisher from catalogue_work "
        "where survey_ref is not null order by survey_ref"
    ).fetchall()
    per_work = Counter(
        min(n, 8)
        for (n,) in conn.execute("select count(*) from catalogue_authorship group by work_id")
    )
    author_counts = [per_work.get(k, 0) for k in range(1, 9)]
    if sum(author_counts) == 0:
        author_counts = AUTHOR_COUNT_FALLBACK
    surnames = sorted(
        {
            last
            for (name,) in conn.execute("select name from catalogue_author")
            if re.fullmatch(r"[A-Z][a-z]+", last := name.split()[-1])
        }
    )
    return Profile(
        leaf_ids=leaves,
        leaf_weights=_normalised([weight[leaf] for leaf in leaves]),
        evidence=[e for e, _ in evidence],
        evidence_weights=_normalised([n for _, n in evidence]),
        provenance=[p for p, _ in provenance],
        provenance_weights=_normalised([n for _, n in provenance]),
        venues=venues,
        author_count_weights=_normalised(author_counts),
        surnames=surnames,
    )


def _ancestors(pk: int, parent_of: dict[int, int | None]) -> set[int]:
    found = {pk}
    while parent_of.get(pk) is not None:
        pk = parent_of[pk]
        found.add(pk)
    return found


def _normalised(values) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    return array / array.sum()


def add_synthetic(
    conn: sqlite3.Connection, profile: Profile, total_works: int, total_edges: int, seed: int
) -> None:
    real_works = conn.execute("select count(*) from catalogue_work").fetchone()[0]
    n_works = max(0, total_works - real_works)
    if n_works == 0:
        return
    rng = np.random.default_rng(seed)
    pyrng = random.Random(seed)
    step = _Steps()
    author_ids = add_authors(conn, profile, pyrng)
    step("authors")
    works = make_works(conn, profile, n_works, rng, pyrng)
    conn.executemany(
        "insert into catalogue_work (id, key, entry_type, title, year, authors_truncated, "
        "journal, booktitle, venue, volume, number, pages, publisher, arxiv_id, doi, url, note, "
        "abstract, survey_ref, seminal, seminal_reason, extra_fields, era, field_sources, "
        "source_url, curated_fields, openalex_id) values "
        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, null, 0, '', '{}', 'survey', "
        "'{}', '', '[]', '')",
        works,
    )
    step("works")
    work_ids = [row[0] for row in works]
    add_authorships(conn, profile, work_ids, author_ids, rng)
    step("authorships")
    add_assignments(conn, profile, work_ids, rng, seed)
    step("assignments")
    real_edges = conn.execute("select count(*) from catalogue_citation").fetchone()[0]
    add_citations(conn, profile, max(0, total_edges - real_edges), rng, pyrng, seed)
    step("citations")


class _Steps:
    """Prints how long each step of the build took (to stderr: stdout is the report)."""

    def __init__(self):
        self.last = time.perf_counter()

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        print(f"  {name}: {now - self.last:.1f} s", file=sys.stderr, flush=True)
        self.last = now


def add_authors(conn: sqlite3.Connection, profile: Profile, pyrng: random.Random) -> list[int]:
    """The pool of authors: the real ones and new names up to AUTHOR_POOL, most popular first."""
    real = [pk for (pk,) in conn.execute("select id from catalogue_author order by id")]
    taken = {name for (name,) in conn.execute("select name from catalogue_author")}
    surnames = list(profile.surnames)
    while len(surnames) < 6000:
        parts = pyrng.sample(SYLLABLES, pyrng.choice((2, 2, 3)))
        surnames.append("".join(parts).capitalize())
    surnames = sorted(set(surnames))
    names: list[str] = []
    while len(real) + len(names) < AUTHOR_POOL:
        initials = pyrng.choice(INITIALS) + "."
        if pyrng.random() < 0.3:
            initials += " " + pyrng.choice(INITIALS) + "."
        name = f"{initials} {pyrng.choice(surnames)}"
        if name not in taken:
            taken.add(name)
            names.append(name)
    first = _next_id(conn, "catalogue_author")
    rows = list(enumerate(names, start=first))
    conn.executemany(
        "insert into catalogue_author (id, name, identity_note) values (?, ?, '')", rows
    )
    pool = real + [pk for pk, _ in rows]
    pyrng.shuffle(pool)  # popularity is by position in the pool, not by name
    return pool


def _next_id(conn: sqlite3.Connection, table: str) -> int:
    return (conn.execute(f"select coalesce(max(id), 0) from {table}").fetchone()[0] or 0) + 1


def sample_years(n: int, rng: np.random.Generator) -> np.ndarray:
    """1986-2018, growing about 20% a year like the field; 2018 is a part year, as in the survey."""
    years = np.arange(FIRST_YEAR, LAST_YEAR + 1)
    weights = np.exp(0.2 * (years - FIRST_YEAR))
    weights[-1] *= 0.3
    return rng.choice(years, size=n, p=weights / weights.sum())


def make_title(pyrng: random.Random) -> str:
    return pyrng.choice(TEMPLATES).format(
        adj=pyrng.choice(ADJECTIVES),
        method=pyrng.choice(METHODS),
        model=pyrng.choice(MODELS),
        task=pyrng.choice(TASKS),
        platform=pyrng.choice(PLATFORMS),
        noun=pyrng.choice(NOUNS),
        name=_made_up_name(pyrng),
    )


def make_abstract(pyrng: random.Random) -> str:
    return ABSTRACT.format(
        method_l=pyrng.choice(METHODS).lower(),
        method2_l=pyrng.choice(METHODS).lower(),
        model_l=pyrng.choice(MODELS).lower(),
        model2_l=pyrng.choice(MODELS).lower(),
        platform_l=pyrng.choice(PLATFORMS).lower(),
        adj_l=pyrng.choice(ADJECTIVES).lower(),
        noun_l=pyrng.choice(NOUNS).lower(),
        task_l=pyrng.choice(TASKS).lower(),
        speedup=pyrng.choice((1.5, 2, 3.7, 6, 12, 30, 90)),
    )


def _made_up_name(pyrng: random.Random) -> str:
    return "".join(pyrng.sample(SYLLABLES, pyrng.choice((2, 3)))).capitalize()


def make_works(
    conn: sqlite3.Connection,
    profile: Profile,
    n: int,
    rng: np.random.Generator,
    pyrng: random.Random,
) -> list[tuple]:
    keys = {key for (key,) in conn.execute("select key from catalogue_work")}
    arxiv_taken = {a for (a,) in conn.execute("select arxiv_id from catalogue_work")}
    first = _next_id(conn, "catalogue_work")
    years = sample_years(n, rng)
    rows = []
    for index, year in enumerate(years.tolist()):
        pk = first + index
        title = make_title(pyrng)
        entry_type, journal, booktitle, venue, publisher = pyrng.choice(profile.venues)
        surname = re.sub(r"[^a-z]", "", pyrng.choice(profile.surnames or ["anon"]).lower())
        word = re.sub(r"[^a-z0-9]", "", title.split()[0].lower()) or "work"
        key = _unique(f"{surname or 'anon'}{year}{word}", keys)
        arxiv_id = ""
        if year >= 2008 and pyrng.random() < 0.4:
            arxiv_id = _unique_arxiv(year, pyrng, arxiv_taken)
        doi = f"10.5555/bench.{pk}" if pyrng.random() < 0.3 else ""
        volume = str(pyrng.randint(1, 60)) if entry_type == "article" else ""
        number = str(pyrng.randint(1, 12)) if entry_type == "article" else ""
        start = pyrng.randint(1, 2000)
        pages = f"{start}--{start + pyrng.randint(4, 20)}" if entry_type != "misc" else ""
        abstract = make_abstract(pyrng) if pyrng.random() < ABSTRACT_FRACTION else ""
        url = f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else ""
        truncated = int(pyrng.random() < 0.1)
        rows.append(
            (pk, key, entry_type, title, year, truncated, journal, booktitle, venue, volume)
            + (number, pages, publisher, arxiv_id, doi, url, abstract)
        )
    return rows


def _unique(key: str, taken: set[str]) -> str:
    candidate, suffix = key, 1
    while candidate in taken:
        suffix += 1
        candidate = f"{key}-{suffix}"
    taken.add(candidate)
    return candidate


def _unique_arxiv(year: int, pyrng: random.Random, taken: set[str]) -> str:
    digits = 5 if year >= 2015 else 4
    while True:
        number = pyrng.randrange(10**digits)
        candidate = f"{year % 100:02d}{pyrng.randint(1, 12):02d}.{number:0{digits}d}"
        if candidate not in taken:
            taken.add(candidate)
            return candidate


def add_authorships(
    conn: sqlite3.Connection,
    profile: Profile,
    work_ids: list[int],
    author_ids: list[int],
    rng: np.random.Generator,
) -> None:
    """1-8 distinct authors per work; a few prolific authors, a long tail (Zipf-like)."""
    counts = rng.choice(np.arange(1, 9), size=len(work_ids), p=profile.author_count_weights)
    popularity = 1.0 / (np.arange(len(author_ids)) + 20.0) ** 0.8
    size = int(counts.sum() * 1.2) + 100
    draws = rng.choice(len(author_ids), size=size, p=_normalised(popularity))
    draws_list, cursor = draws.tolist(), 0
    rows = []
    for work_id, k in zip(work_ids, counts.tolist(), strict=True):
        chosen: list[int] = []
        while len(chosen) < k:
            if cursor >= len(draws_list):
                draws_list, cursor = rng.integers(len(author_ids), size=10_000).tolist(), 0
            author = author_ids[draws_list[cursor]]
            cursor += 1
            if author not in chosen:
                chosen.append(author)
        rows.extend((work_id, author, position) for position, author in enumerate(chosen, 1))
    conn.executemany(
        "insert into catalogue_authorship (work_id, author_id, position) values (?, ?, ?)", rows
    )


def add_assignments(
    conn: sqlite3.Connection,
    profile: Profile,
    work_ids: list[int],
    rng: np.random.Generator,
    seed: int,
) -> None:
    """1 or 2 leaf categories per work (about the real 1.23 per work), real evidence mix."""
    second = rng.random(len(work_ids)) < 0.23
    first_leaf = rng.choice(profile.leaf_ids, size=len(work_ids), p=profile.leaf_weights)
    second_leaf = rng.choice(profile.leaf_ids, size=len(work_ids), p=profile.leaf_weights)
    evidence = rng.choice(profile.evidence, size=2 * len(work_ids), p=profile.evidence_weights)
    note = f"synthetic benchmark row (seed {seed}), drawn from the real assignments' distribution"
    rows = []
    for i, work_id in enumerate(work_ids):
        rows.append((work_id, int(first_leaf[i]), str(evidence[2 * i]), note))
        if second[i] and second_leaf[i] != first_leaf[i]:
            rows.append((work_id, int(second_leaf[i]), str(evidence[2 * i + 1]), note))
    conn.executemany(
        "insert into catalogue_assignment (work_id, category_id, evidence, source_note, "
        "curated_fields, alternatives) values (?, ?, ?, ?, '[]', '')",
        rows,
    )


def add_citations(
    conn: sqlite3.Connection,
    profile: Profile,
    n_edges: int,
    rng: np.random.Generator,
    pyrng: random.Random,
    seed: int,
) -> None:
    """Price's model: works arrive by year; each synthetic work cites earlier works with a
    probability proportional to (citations received + 1), so that old, much-cited works gather
    most citations. Real works arrive too (and can be cited) but cite nothing new."""
    works = conn.execute(
        "select w.id, w.key, coalesce(w.year, 2018), w.title, w.survey_ref is null, "
        "coalesce((select a.name from catalogue_authorship s join catalogue_author a "
        "on a.id = s.author_id where s.work_id = w.id and s.position = 1), '') "
        "from catalogue_work w order by coalesce(w.year, 2018), w.id"
    ).fetchall()
    synthetic = [w[0] for w in works if w[4]]
    if not synthetic or n_edges <= 0:
        return
    mean = n_edges / len(synthetic)
    # Negative binomial (r=2): most works cite a handful, some cite a great many.
    out_degree = 1 + rng.negative_binomial(2, 2 / (2 + max(mean - 1, 1e-9)), size=len(synthetic))
    out_degree = _rescale(out_degree, n_edges)
    wanted = dict(zip(synthetic, out_degree.tolist(), strict=True))
    pool: list[int] = []  # each arrived work once, plus once per citation it has received
    edges: list[tuple[int, int]] = []
    carry = arrived = 0
    for work_id, *_rest, is_synthetic, _author in works:
        if is_synthetic and pool:
            k = min(wanted[work_id] + carry, arrived // 4, MAX_REFERENCES)
            carry += wanted[work_id] - k
            cited = _preferential(pool, k, pyrng)
            carry += k - len(cited)
            edges.extend((work_id, c) for c in cited)
            pool.extend(cited)
        elif is_synthetic:
            carry += wanted[work_id]
        pool.append(work_id)
        arrived += 1
    describe = {w[0]: (w[1], w[2], w[3], w[5]) for w in works}
    provenance = rng.choice(profile.provenance, size=len(edges), p=profile.provenance_weights)

    def rows() -> Iterator[tuple]:
        for (citing, cited), prov in zip(edges, provenance.tolist(), strict=True):
            citing_key = describe[citing][0]
            _, year, title, author = describe[cited]
            yield (
                citing,
                cited,
                prov,
                f"synthetic benchmark corpus (seed {seed}): reference list of {citing_key}",
                f"{author} et al. {year}. {title}.",
            )

    conn.executemany(
        "insert into catalogue_citation (citing_id, cited_id, provenance, evidence_source, "
        "evidence_excerpt, curated_fields) values (?, ?, ?, ?, ?, '[]')",
        rows(),
    )


def _rescale(degrees: np.ndarray, total: int) -> np.ndarray:
    """Scale integer degrees (each >= 1) so that they add up to `total` exactly."""
    scaled = np.maximum(1, np.floor(degrees * (total / degrees.sum()))).astype(np.int64)
    diff = total - int(scaled.sum())
    order = np.argsort(-scaled, kind="stable")
    step = 1 if diff > 0 else -1
    i = 0
    while diff != 0:
        j = order[i % len(order)]
        if step > 0 or scaled[j] > 1:
            scaled[j] += step
            diff -= step
        i += 1
    return scaled


def _preferential(pool: list[int], k: int, pyrng: random.Random) -> list[int]:
    chosen: dict[int, None] = {}
    tries = 0
    while len(chosen) < k and tries < 20 * k + 100:
        chosen[pool[int(pyrng.random() * len(pool))]] = None
        tries += 1
    return list(chosen)


CHECK_SCRIPT = """
import random
from catalogue.models import Assignment, Authorship, Citation, Work
sample, seed = {sample}, {seed}
ids = list(Work.objects.filter(survey_ref__isnull=True).values_list("pk", flat=True))
ids = random.Random(seed).sample(ids, min(sample, len(ids)))
rows = list(Work.objects.filter(pk__in=ids))
rows += Authorship.objects.filter(work__in=ids)
rows += Assignment.objects.filter(work__in=ids)
rows += Citation.objects.filter(citing__in=ids)[: 2 * sample]
for row in rows:
    row.full_clean()
print(len(rows))
"""


def check(db: Path, sample: int, seed: int) -> None:
    """Foreign keys hold everywhere; a sample of synthetic rows passes the models' full_clean()."""
    with sqlite3.connect(db) as conn:
        broken = conn.execute("pragma foreign_key_check").fetchall()
        quick = conn.execute("pragma quick_check").fetchone()[0]
    conn.close()
    if broken or quick != "ok":
        raise RuntimeError(f"corpus check failed: {broken[:5]} {quick}")
    manage(db, "shell", "-c", CHECK_SCRIPT.format(sample=sample, seed=seed))


def default_path(works: int) -> Path:
    label = f"{works // 1000}k" if works >= 1000 and works % 1000 == 0 else str(works)
    return DATA / f"synthetic-{label}.sqlite3"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--works", type=int, default=100_000, help="total works (270 = survey)")
    parser.add_argument("--edges", type=int, default=1_000_000, help="total citation edges")
    parser.add_argument("--db", type=Path, help="SQLite file (default bench/data/synthetic-N)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    report = build(args.db or default_path(args.works), args.works, args.edges, args.seed)
    print("\n".join(report.lines()))


if __name__ == "__main__":
    main()
