"""What kind of page a field was read on, from its address: the data-quality and sources pages
count the fields each kind gave, and a work's page says when an identifier of it was read on a
secondary source. The table is ours (a host -> kind list, by suffix, or a host and path prefix
for one repository's files); an address no entry names is "other page" (document mirrors, blogs,
summaries)."""

from __future__ import annotations

from urllib.parse import urlsplit

SEED = "the survey's reference list"
OTHER = "other page (document mirror, blog, summary)"
SECONDARY = "secondary source (a third party citing the work: reading list, notes, docs, code)"
KINDS = {
    # First: these repositories are third parties that cite a work (not its authors' project, not
    # an index of it); an identifier read in their files is secondary evidence. Kept in step with
    # the fields fixtures/build/sources/identifiers.json marks `secondary` (a test holds them).
    SECONDARY: (
        "github.com/hiroyuki-kasai/SGDLibrary",
        "github.com/FluxML/Flux.jl",
        "github.com/urwithajit9/30DaysOfFLCode",
        "github.com/parmes/solfec-2.0",
        "github.com/tgquintela/temporal_tasks",
        "github.com/tttor/math-foundation",
        "github.com/apache/mxnet-site",
        "github.com/ljk628/ML-Systems",
        "github.com/bharathgs/Awesome-Distributed-Deep-Learning",
    ),
    "OpenAlex record (through a page showing it)": (
        "openalex.org",
        "pubindex.ai",
        "scilynk.com",
        "concepedia.online",
        "hugmap.com",
        "nobleblocks.com",
        "explanipedia.com",
    ),
    "arXiv abstract page or its mirror": (
        "arxiv.org",
        "tomesphere.com",
        "researchtrend.ai",
        "sciencestack.ai",
        "bohrium.dp.tech",
        "pith.science",
        "scholarfeed.org",
        "papiers.ai",
        "alphaxiv.org",
        "arxiv-vanity.com",
        "hf.xwall.us.kg",
        "scifaro.com",
        "hatenablog-parts.com",
        "emergentmind.com",
        "ciiegccf.org",
        "sourcescore.pages.dev",
        "arxivlens.com",
        "deeplearn.org",
        "summarizepaper.com",
        "thelatestinai.com",
    ),
    "publisher or proceedings page": (
        "nips.cc",
        "neurips.cc",
        "mlr.press",
        "jmlr.org",
        "jmlr.csail.mit.edu",
        "usenix.org",
        "thecvf.com",
        "mlsys.org",
        "openreview.net",
        "aclanthology.info",
        "icml.cc",
        "iclr.cc",
        "nature.com",
        "acm.org",
        "ieee.org",
        "computer.org",
        "supercomputing.org",
        "research.google",
        "microsoft.com",
        "intel.com",
        "projecteuclid.org",
        "mpi-forum.org",
        "siam.org",
        "springer.com",
        "springerlink.com",
    ),
    "scholarly index or catalogue": (
        "scholar.archive.org",
        "citegraph.io",
        "semanticscholar.org",
        "bibsonomy.org",
        "mendeley.com",
        "resea.org",
        "hal.inria.fr",
        "zbmath.org",
        "researchr.org",
        "par.nsf.gov",
        "mlanthology.org",
        "aminer.cn",
        "aminer.org",
        "acemap.info",
        "lib.cas.cz",
        "papers.cool",
        "paperswithcode.com",
        "bibbase.org",
        "ideas.repec.org",
        "shortscience.org",
        "bohrium.com",
        "utb.cz",
        "120.26.44.124",
        "archives-ouvertes.fr",
        "citeulike.org",
        "paperexplained.cn",
        "citeseerx.ist.psu.edu",
        "aitopics.org",
        "hgpu.org",
        "scilit.net",
    ),
    "author, lab or institution page": (
        ".edu",
        "ethz.ch",
        "unixer.de",
        "huji.ac.il",
        "kaust.edu.sa",
        "elsevierpure.com",
        "rongyi.ai",
        "microsoft-e.team",
        "approjects.co.za",
        "github.io",
    ),
    # Accepted only when the repository is the authors' own project or a project's official docs.
    "authors' or project's repository (GitHub file)": ("github.com",),
}


def matches(host: str, suffix: str, path: str = "") -> bool:
    """`host` is `suffix` or one of its subdomains ("papers.nips.cc" and "nips.cc"); a suffix
    starting with a dot matches any host ending so (".edu"). An entry with a path
    ("github.com/owner/repo") matches that host exactly and the paths under that prefix, whole
    segments only ("github.com/owner/repo2" is not under it)."""
    if "/" in suffix:
        entry_host, _, prefix = suffix.partition("/")
        under = (path.rstrip("/") + "/").lower().startswith(f"/{prefix.lower()}/")
        return host == entry_host and under
    if suffix.startswith("."):
        return host.endswith(suffix)
    return host == suffix or host.endswith("." + suffix)


def source_kind(url: str) -> str:
    """The kind of page at `url` (see KINDS); OTHER when no entry names its host."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    for kind, suffixes in KINDS.items():
        if any(matches(host, suffix, parts.path) for suffix in suffixes):
            return kind
    return OTHER
