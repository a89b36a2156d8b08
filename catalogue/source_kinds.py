"""What kind of evidence a recorded source address is: one registry, by host (and by path where
one host holds pages of several kinds), for every "read on" link the pages, the API, the
data-quality and sources pages and the fixtures' share script show.

Three kinds:
- first-hand: where the authors, publisher, vendor or benchmark body put the fact: the publisher
  or proceedings, arXiv (arxiv.org only), doi.org, OpenAlex and dblp records, the authors' own
  pages and repositories (a repository only at a pinned commit), the vendor for a device figure,
  MLCommons for MLPerf;
- index: a library catalogue, a curated anthology, a bibliographic database (NASA ADS) or an
  institutional repository or research portal that records the work without being its publisher
  or its authors, at whatever domain (a university's domain makes no host first-hand);
- secondary: aggregators, summaries, transcriptions, reading notes, mirrors, look-alike domains,
  bare IP addresses, and every host the registry does not name (secondary until classified).

Pure: no ORM, no request.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

FIRST_HAND, INDEX, SECONDARY = "first-hand", "index", "secondary"
KINDS = (FIRST_HAND, INDEX, SECONDARY)
KIND_LABELS = {
    FIRST_HAND: "first-hand (publisher, proceedings, arXiv, OpenAlex/dblp, authors, vendor)",
    INDEX: "index (library catalogue, curated anthology, bibliographic database, repository)",
    SECONDARY: "secondary (aggregator, summary, transcription, mirror, unclassified host)",
}
# A repository file pinned to a commit: /blob/<sha>/, /tree/<sha>/, /raw/<sha>/, /commit/<sha>.
PINNED = re.compile(r"^/[^/]+/[^/]+/(?:blob|tree|raw|commit)/[0-9a-f]{7,40}(?:/|$)", re.I)


@dataclass(frozen=True)
class Entry:
    """One registry line: `where` is a host suffix ("nips.cc" names papers.nips.cc too), a host
    starting with a dot for any host ending so (".example"; none is used: a top-level domain says
    nothing of what a host is), or host/path-prefix for one owner or
    repository ("github.com/mlcommons"). `pinned`: first-hand only at a pinned commit."""

    where: str
    kind: str
    what: str
    pinned: bool = False


def _entries(kind: str, what: str, *where: str, pinned: bool = False) -> tuple[Entry, ...]:
    return tuple(Entry(item, kind, what, pinned) for item in where)


REGISTRY: tuple[Entry, ...] = (
    *_entries(FIRST_HAND, "arXiv", "arxiv.org"),
    *_entries(FIRST_HAND, "DOI resolver", "doi.org", "dx.doi.org"),
    *_entries(FIRST_HAND, "OpenAlex record", "openalex.org"),
    *_entries(FIRST_HAND, "dblp record", "dblp.org", "dblp.uni-trier.de"),
    *_entries(
        FIRST_HAND,
        "publisher or proceedings",
        *("nips.cc", "neurips.cc", "mlr.press", "jmlr.org", "jmlr.csail.mit.edu", "usenix.org"),
        *("thecvf.com", "mlsys.org", "openreview.net", "aclanthology.org", "aclanthology.info"),
        *("aclweb.org", "icml.cc", "iclr.cc", "nature.com", "acm.org", "ieee.org"),
        *("computer.org", "supercomputing.org", "projecteuclid.org", "mpi-forum.org"),
        *("siam.org", "springer.com", "springerlink.com", "springeropen.com", "isca-archive.org"),
        *("isca-speech.org", "biorxiv.org", "sciencedirect.com", "aaai.org", "ijcai.org"),
        *("vldb.org", "mitpressjournals.org", "direct.mit.edu", "pnas.org", "science.org"),
        *("wiley.com", "cambridge.org", "oup.com", "tandfonline.com", "bmva.org"),
        # now Publishers (Foundations and Trends): its article pages print the DOI.
        "nowpublishers.com",
    ),
    *_entries(
        FIRST_HAND,
        "authors' lab, institution or own page",
        # Named hosts, never a top-level domain: a university also hosts indexes and
        # repositories (NASA ADS at harvard.edu, DSpace at mit.edu), which are no author's page.
        *("ethz.ch", "unixer.de", "huji.ac.il", "kaust.edu.sa", "cs.toronto.edu"),
        *("amplab.cs.berkeley.edu", "pdl.cmu.edu", "nbcl.cse.ohio-state.edu"),
        *("supertech.csail.mit.edu", "lips.cs.princeton.edu", "gfx.cs.princeton.edu"),
        *("stanford.edu/~jduchi", "web.stanford.edu/~boyd"),
        *("research.google", "research.google.com", "ai.google", "ai.googleblog.com"),
        *("deepmind.com", "deepmind.google", "openai.com", "microsoft.com", "ibm.com"),
        *("andrewng.org", "inria.fr", "archives-ouvertes.fr"),
        *("mpi-inf.mpg.de", "ox.ac.uk", "cam.ac.uk", "epfl.ch", "tum.de"),
        *("llnl.gov", "ornl.gov", "anl.gov", "lbl.gov", "sandia.gov", "riken.jp"),
        *("research.fb.com", "research.facebook.com", "ai.meta.com", "nv-adlr.github.io"),
        *("tech.preferred.jp", "preferred.jp", "leon.bottou.org", "ista.ac.at", "argmin.net"),
        *("blog.nnabla.org", "volcengine.github.io"),
        *("tianlu-wang.github.io", "ztatlock.net"),
        # Issue 37, fifth pass: authors' own sites (Lee et al. 2015's co-author; Friedlander).
        *("senthilpurushwalkam.com", "friedlander.io"),
        # Yi Rong's own site (co-author of DAPPLE): its publication page and the paper's PDF.
        "rongyi.ai",
    ),
    *_entries(
        FIRST_HAND,
        "the authors' or the project's own repository",
        "github.com/LLNL/lbann",
        "github.com/NVIDIA/Megatron-LM",
        "github.com/microsoft/DeepSpeed",
        "github.com/deepspeedai/DeepSpeed",
        "github.com/pytorch",
        # The PyTorch team's Applied AI repository: its README lists the team's papers (FSDP).
        "github.com/pytorch-labs/applied-ai",
        "github.com/tensorflow",
        "github.com/horovod/horovod",
        "github.com/google-research",
        "github.com/facebookresearch",
        "github.com/NVIDIA",
        "github.com/alpa-projects/alpa",
        "github.com/spcl",
        "github.com/epfml",
        "github.com/msr-fiddle",
        "github.com/bytedance/byteps",
        "github.com/laekov/fastmoe",
        "github.com/microsoft/varuna",
        "github.com/Shigangli/Chimera",
        "github.com/jxbz/signSGD",
        "github.com/flexflow/FlexFlow",
        "github.com/meta-llama/llama",
        "github.com/keras-team/keras",
        "github.com/hpcaitech/ColossalAI",
        "github.com/haoliuhl/ringattention",
        # Sea AI Lab's repository of Zero Bubble Pipeline Parallelism (its authors' code).
        "github.com/sail-sg/zero-bubble-pipeline-parallelism",
        "github.com/p4lang/p4app-switchML",
        "github.com/eladhoffer/bigBatch",
        "github.com/cypw/DPNs",
        "github.com/callowbird/Harmonica",
        "github.com/fyu/dilation",
        "github.com/tensorpack/tensorpack",
        "github.com/MatthieuCourbariaux/BinaryConnect",
        "github.com/songhan/Deep-Compression-AlexNet",
        "github.com/bowenbaker/metaqnn",
        "github.com/fengfu-chris/caffe-twns",
        "github.com/apache/tvm",
        "github.com/forresti/SqueezeNet",
        "github.com/MatthieuCourbariaux/BinaryNet",
        "github.com/JianGoForIt/YellowFin",
        "github.com/quark0/darts",
        "github.com/melodyguan/enas",
        "github.com/ajbrock/SMASH",
        "github.com/tkarras/progressive_growing_of_gans",
        "github.com/vdumoulin/conv_arithmetic",
        "github.com/loshchil/SGDR",
        "github.com/liuzhuang13/DenseNet",
        "github.com/KaimingHe/deep-residual-networks",
        "github.com/BVLC/caffe",
        "github.com/amplab/SparkNet",
        "github.com/synxlin/deep-gradient-compression",
        "github.com/dmlc/mxnet-memonger",
        "github.com/uber-research/deep-neuroevolution",
        "github.com/negrinho/deep_architect",
        "github.com/openai/weightnorm",
        "github.com/kelvinxu/arctic-captions",
        "github.com/bitsandbytes-foundation/bitsandbytes",
        "github.com/facebookarchive/fbcunn",
        "github.com/kaldi-asr/kaldi",
        "github.com/cyclops-community/ctf",
        # Baidu SVAIL's CTC library: its README cites its lab's Deep Speech 2 paper.
        "github.com/baidu-research/warp-ctc",
        # PaddlePaddle's own cluster project, which holds its Elastic Deep Learning design.
        "github.com/PaddlePaddle/cloud",
        # Baidu SVAIL's ring allreduce, whose README links the blog post it accompanies.
        "github.com/baidu-research/baidu-allreduce",
        # The source of Christopher Olah's own blog (colah.github.io).
        "github.com/colah/colah.github.io",
        # The works after the survey, each read in its authors' or its lab's repository.
        "github.com/Dao-AILab/flash-attention",
        "github.com/EleutherAI/gpt-neox",
        "github.com/openai/gpt-3",
        "github.com/deepseek-ai/DeepSeek-V3",
        "github.com/Tencent/PatrickStar",
        "github.com/feifeibear/long-context-attention",
        "github.com/databricks/megablocks",
        "github.com/BaguaSys/bagua",
        "github.com/microsoft/tutel",
        "github.com/parasj/checkmate",
        "github.com/kakaobrain/torchgpipe",
        "github.com/RulinShao/LightSeq",
        "github.com/lhao499/ringattention",
        "github.com/PKU-DAIR/Hetu-Galvatron",
        "github.com/THUDM/GLM-130B",
        "github.com/meta-llama/llama-cookbook",
        "github.com/alibaba/EasyParallelLibrary",
        "github.com/sands-lab/grace",
        # Issue 37, third pass: authors' and co-authors' own repositories and sites.
        # Marian NMT, whose developers include Heafield and Aji (their gradient-drop option).
        "github.com/marian-nmt/marian",
        # Hao Zhang's own site (co-author of TeraPipe and GeePS): its publication list.
        "github.com/zhisbug/site",
        # Tao Lin's own site (first author of post-local SGD).
        "github.com/tlin-taolin/tlin-taolin.github.io",
        # Google's own frameworks, for papers by Google's authors (PaLM, weight-update sharding).
        "github.com/google/paxml",
        "github.com/jax-ml/jax",
        # Montreal LISA lab's GroundHog (Cho, Bahdanau, Bengio's neural machine translation code).
        "github.com/lisa-groundhog/GroundHog",
        # The DeepSpark authors' own project (Kim, Park, Jang, Yoon).
        "github.com/deepspark",
        # Co-author Rendani Mbuvha's own site.
        "github.com/rendanim/rendanimbuvha.com",
        # The authors' code for 'On the utility of gradient compression' (Venkataraman's lab).
        "github.com/uw-mad-dash/GradCompressionUtility",
        # Intel's Caffe: co-authors Zhang and Mitliagkas's parameter server for Kurth et al.
        "github.com/intel/caffe",
        # Co-author Yuncheng Li's asynchronous-SGD code for Lian et al. 2015.
        "github.com/raingo/caffe-mpi",
        # The Bagua team's tutorials (Bagua's authors include Lian, Liu and Zhang).
        "github.com/BaguaSys/tutorials",
        # Issue 37, identifiers (helper idsC): the authors' lab's and the projects' own.
        # Montreal's LISA lab (Bengio's): its tutorials and libraries list the lab's papers.
        "github.com/lisa-lab",
        # Torch7's own repository (Collobert, Kavukcuoglu, Farabet's framework).
        "github.com/torch/torch7",
        # The reference LAPACK and BLAS (netlib's), developed by the LAPACK team.
        "github.com/Reference-LAPACK/lapack",
        # Intel's own Android NN HAL, whose README gives the home page of Intel's MKL-DNN.
        "github.com/intel/nn-hal",
        # Petuum's Poseidon release (Xing's group: Xie and Ho of Sufficient Factor Broadcasting).
        "github.com/petuum-inc/poseidon-release",
        # PMLR's own volume repositories, from which proceedings.mlr.press is built.
        "github.com/mlresearch",
        # Issue 37, identifiers pass idsA: authors' and co-authors' own sites (GitHub Pages).
        "github.com/tbennun/tbennun.github.io",  # Tal Ben-Nun (the survey's first author)
        "github.com/MarisaKirisame/MarisaKirisame.github.io",  # Marisa Kirisame (DTR)
        "github.com/jiwoongim/jiwoongim.github.io",  # Daniel Jiwoong Im (GAP)
        "github.com/tomlepaine/tomlepaine.github.io",  # Tom Le Paine (GPU async SGD)
        "github.com/jmetzen/jmetzen.github.io",  # Jan Hendrik Metzen (co-author, NASH)
        "github.com/jasonzliang/jasonzliang.github.io",  # Jason Liang (co-author, CoDeepNEAT)
        "github.com/posenhuang/posenhuang.github.io",  # Po-Sen Huang (co-author, Gopher)
        "github.com/deepakn94/deepakn94.github.io",  # Deepak Narayanan (PipeDream-2BW)
        # Issue 37, identifiers pass idsE: first authors' own code repositories.
        "github.com/andravin/wincnn",  # Andrew Lavin (Fast Algorithms for CNNs, CVPR 2016)
        "github.com/sixin-zh/mpiT",  # Sixin Zhang (Elastic Averaging SGD, NIPS 2015)
        # Issue 37, identifiers pass idsD: authors' and co-authors' own sites and code.
        "github.com/jimmylba/jimmylba.github.io",  # Jimmy Ba (first author, Ba & Caruana)
        "github.com/quark0/quark0.github.io",  # Hanxiao Liu (first author, hierarchical NAS)
        "github.com/ryotat/ryotat.github.io",  # Ryota Tomioka (co-author, QSGD)
        "github.com/omry/yadan.net",  # Omry Yadan (first author, multi-GPU ConvNets)
        "github.com/akrizhevsky/cuda-convnet2",  # Alex Krizhevsky's code (one weird trick)
        pinned=True,
    ),
    # The ACL Anthology's own repository (the publisher of the ACL proceedings): its data/xml
    # files hold each paper's record with its DOI.
    *_entries(
        FIRST_HAND,
        "the proceedings' own repository (ACL Anthology)",
        "github.com/acl-org/acl-anthology",
        pinned=True,
    ),
    # A workshop's page of a talk given on the paper by its co-author: the speaker's own abstract
    # (issue 37, identifiers pass idsG: Ryota Tomioka's AMPNet talk at the 2017 French-Japanese
    # machine-learning workshop, its arXiv link).
    *_entries(
        FIRST_HAND,
        "a workshop's page of a co-author's talk on the paper (the speaker's abstract)",
        "fjml.marcocuturi.net",
    ),
    # A university's technical-report series is the report's publisher; its department's news
    # page is the authors' institution speaking of their own result.
    *_entries(
        FIRST_HAND,
        "the authors' institution (its technical reports or news)",
        "www2.eecs.berkeley.edu/Pubs/TechRpts",
        "eecs.berkeley.edu/news",
    ),
    *_entries(FIRST_HAND, "the vendor (for a device figure)", "nvidia.com", "intel.com"),
    *_entries(FIRST_HAND, "MLCommons (MLPerf)", "mlcommons.org"),
    *_entries(FIRST_HAND, "MLCommons (MLPerf)", "github.com/mlcommons", pinned=True),
    *_entries(
        INDEX,
        "library catalogue or curated anthology",
        *("scholar.archive.org", "mlanthology.org", "researchr.org", "semanticscholar.org"),
        *("zbmath.org", "par.nsf.gov", "citeseerx.ist.psu.edu", "lib.cas.cz", "katalog.k.utb.cz"),
        *("scilit.net", "scilit.com", "aminer.cn", "aminer.org", "acemap.info", "ideas.repec.org"),
        *("search.isc.ac", "scienceopen.com", "crossref.org", "europepmc.org", "nufind.nu.edu.sa"),
        *("bib-bvb.de",),
    ),
    # Indexes at a university's or an institution's domain: they record a work without being
    # its publisher or its authors (classified by what the host is, not by its domain).
    *_entries(INDEX, "bibliographic database (NASA ADS)", "ui.adsabs.harvard.edu"),
    *_entries(
        INDEX,
        "institutional repository or research-information portal",
        *("dspace.mit.edu", "oar.princeton.edu", "dare.uva.nl", "pure.itu.dk"),
        *("elsevierpure.com", "experts.illinois.edu", "scholars.duke.edu"),
    ),
    # Third parties naming a repository of theirs: never the work's authors.
    *_entries(
        SECONDARY,
        "a third party's repository (reading list, notes, docs citing the work)",
        *("github.com/hiroyuki-kasai/SGDLibrary", "github.com/FluxML/Flux.jl"),
        *("github.com/urwithajit9/30DaysOfFLCode", "github.com/parmes/solfec-2.0"),
        *("github.com/tgquintela/temporal_tasks", "github.com/tttor/math-foundation"),
        *("github.com/apache/mxnet-site", "github.com/ljk628/ML-Systems"),
        *("github.com/bharathgs/Awesome-Distributed-Deep-Learning"),
        *("github.com/JackonYang/paper-reading", "github.com/Watch-Later/paper-reading-2"),
    ),
    *_entries(SECONDARY, "look-alike of arxiv.org (not arXiv)", "arcxiv.org"),
    # A third party's text copies of published papers stored on a university's object store:
    # the .edu rule would make them first-hand; they are a mirror, never the publisher.
    *_entries(SECONDARY, "a third party's text copy of a paper (mirror)", "object.cloud.sdsc.edu"),
    *_entries(
        SECONDARY,
        "transcription of the survey's reference list (the project's seed page)",
        "research.elamur.ai",
    ),
    *_entries(
        SECONDARY,
        "aggregator, summary or mirror",
        *("tomesphere.com", "citegraph.io", "researchtrend.ai", "sciencestack.ai"),
        *("bohrium.dp.tech", "bohrium.com", "arxivlens.com", "pith.science", "scilynk.com"),
        *("approjects.co.za", "sourcescore.pages.dev", "summarizepaper.com"),
        *("papers.cool", "paperswithcode.com", "huggingface.co", "scholarfeed.org"),
        *("papiers.ai", "alphaxiv.org", "arxiv-vanity.com", "emergentmind.com"),
        *("deeplearn.org", "thelatestinai.com", "pubindex.ai", "concepedia.online"),
        *("hugmap.com", "nobleblocks.com", "explanipedia.com", "mendeley.com"),
        *("bibsonomy.org", "citeulike.org", "bibbase.org", "shortscience.org"),
    ),
)
UNCLASSIFIED = Entry("", SECONDARY, "host not classified yet")
BARE_IP = Entry("", SECONDARY, "bare IP address (no publisher)")


@dataclass(frozen=True)
class Classification:
    kind: str
    what: str


def _path_matches(path: str, prefix: str) -> bool:
    """Whole path segments only: github.com/apache/mxnet-site2 is not under apache/mxnet-site."""
    return (path.rstrip("/") + "/").lower().startswith(f"/{prefix.lower().strip('/')}/")


def _specificity(entry: Entry) -> int:
    return len(entry.where) + (1000 if "/" in entry.where else 0)


def _entries_by_host() -> tuple[dict[str, list[Entry]], dict[str, list[Entry]]]:
    """The registry keyed by host, so that a lookup walks a host's few suffixes instead of every
    entry: (entries naming a host or host/path, entries naming ".suffix" keyed without its dot)."""
    named: dict[str, list[Entry]] = {}
    dotted: dict[str, list[Entry]] = {}
    for entry in REGISTRY:
        host = entry.where.partition("/")[0].lower()
        if host.startswith("."):
            dotted.setdefault(host[1:], []).append(entry)
        else:
            named.setdefault(host, []).append(entry)
    return named, dotted


_NAMED, _DOTTED = _entries_by_host()


def _host_suffixes(host: str) -> list[str]:
    """ "a.b.c" -> ["a.b.c", "b.c", "c"]: the host and every parent domain."""
    labels = host.split(".")
    return [".".join(labels[i:]) for i in range(len(labels))]


def _candidates(host: str) -> list[Entry]:
    """Registry entries whose host part names `host`: the host itself or a parent domain for a
    named entry, a proper parent domain for a ".suffix" entry."""
    suffixes = _host_suffixes(host)
    found = [entry for suffix in suffixes for entry in _NAMED.get(suffix, ())]
    found += [entry for suffix in suffixes[1:] for entry in _DOTTED.get(suffix, ())]
    return found


def matching_entry(url: str) -> Entry:
    """The most specific registry entry naming `url` (a host and path entry over a host entry,
    a longer host over a shorter), BARE_IP for an address, UNCLASSIFIED when none does."""
    parts = urlsplit(url.strip())
    # A fully qualified name's trailing dot ("arxiv.org.") names the same host.
    host = (parts.hostname or "").lower().rstrip(".").removeprefix("www.")
    try:
        ipaddress.ip_address(host)
        return BARE_IP
    except ValueError:
        pass
    found = [
        entry
        for entry in _candidates(host)
        if "/" not in entry.where or _path_matches(parts.path, entry.where.partition("/")[2])
    ]
    return max(found, key=_specificity) if found else UNCLASSIFIED


# Pages that list what another paper cites (HAL's "html_references" of a deposit): a third
# party citing the work, whatever the host's own kind.
CITING_LIST = re.compile(r"/html_references/?$", re.I)


@lru_cache(maxsize=16384)  # pure, and pages classify the same few hundred addresses
def classify(url: str) -> Classification:
    """The kind of evidence at `url` and what the page is. A repository the registry names as
    the authors' is first-hand only at a pinned commit (a branch moves under the fact)."""
    entry = matching_entry(url)
    path = urlsplit(url.strip()).path
    if CITING_LIST.search(path):
        return Classification(SECONDARY, "another paper's reference list (a third party citing it)")
    if entry.pinned and not PINNED.match(path):
        return Classification(SECONDARY, f"{entry.what}, at no pinned commit")
    return Classification(entry.kind, entry.what)


def source_kind(url: str) -> str:
    """first-hand, index or secondary (see the module's docstring)."""
    return classify(url).kind


def kind_counts(urls) -> dict[str, int]:
    """{kind: how many of `urls`} for every kind (zero counts included), blanks skipped."""
    counts = dict.fromkeys(KINDS, 0)
    for url in urls:
        if url:
            counts[source_kind(url)] += 1
    return counts


# The kinds of fact the data-quality and sources pages count, in their order, with their words.
FACTS = {
    "identifiers": "identifiers (DOI, arXiv id, OpenAlex id, landing page)",
    "bibliographic": "bibliographic fields (title, authors, year, venue)",
    "result_figures": "result figures",
    "result_settings": "result settings (a result's page and its configuration's pages)",
    "placements": "placements (category assignments and citation edges)",
}


def evidence_row(fact: str, urls, unsourced: int = 0) -> dict:
    """One kind of fact's recorded sources counted by kind of evidence; `unsourced` values have
    no recorded source (they count in the total, never as first-hand)."""
    counts = kind_counts(urls)
    total = sum(counts.values()) + unsourced
    return {
        "fact": fact,
        "label": FACTS[fact],
        "counts": counts,
        "unsourced": unsourced,
        "values": total,
        "first_hand_percent": round(100 * counts[FIRST_HAND] / total) if total else None,
    }
