"""Layer configurations from real networks, for the W-D plots at /costs/.

Each preset is one layer of a network that the survey cites, with the sizes its paper gives. The
source is the network's paper in the survey's bibliography (v2 reference number and BibTeX key);
the note says which sizes the paper states and which follow from it (or are a known erratum).
N is the minibatch size the paper trains with: 128 for AlexNet, 256 for VGG and ResNet. The sizes,
the minibatch and the source are read from the network's layer table in fixtures/networks.json
(the one the planner counts whole networks with); a preset names its network and layer.

Sizes: N minibatch, C_in/C_out channels, H×W input, K×K kernel, stride, pad (zero padding on each
side); the output H_out×W_out follows. `pool` is the pooling window used for the pooling operator
and `m_tile` the Winograd output tile; neither is part of the layer itself.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

CONV = "conv"
FC = "fc"
CONV_SIZES = ("H", "W", "K", "stride", "pad")  # what a convolution has beyond its channels
NETWORKS = Path(__file__).resolve().parents[2] / "fixtures" / "networks.json"


@dataclass(frozen=True)
class Source:
    network: str
    ref: int  # v2 reference number
    key: str  # BibTeX key in fixtures/survey.bib


@dataclass(frozen=True)
class Layer:
    """One layer's sizes. A fully connected layer (kind "fc") has H = W = K = 1."""

    kind: str
    N: int
    C_in: int
    C_out: int
    H: int = 1
    W: int = 1
    K: int = 1
    stride: int = 1
    pad: int = 0
    pool: int = 2
    m_tile: int = 2

    @property
    def H_out(self) -> int:
        return (self.H + 2 * self.pad - self.K) // self.stride + 1

    @property
    def W_out(self) -> int:
        return (self.W + 2 * self.pad - self.K) // self.stride + 1

    @property
    def tiles(self) -> int:
        """Winograd tiles P = N·⌈H_out/m⌉·⌈W_out/m⌉ (RECALLED definition, FACTS.md §2.3)."""
        return self.N * math.ceil(self.H_out / self.m_tile) * math.ceil(self.W_out / self.m_tile)

    def with_sizes(self, **sizes: int) -> Layer:
        return replace(self, **sizes)

    def sizes(self) -> dict[str, int]:
        """The layer's sizes, derived ones included, as the API shows them."""
        names = ["N", "C_in", "C_out", "H", "W", "K", "stride", "pad", "H_out", "W_out"]
        if self.kind == FC:
            names = ["N", "C_in", "C_out"]
        values = {name: getattr(self, name) for name in names}
        if self.kind == CONV:
            values |= {"pool": self.pool, "m_tile": self.m_tile}
        return values


@dataclass(frozen=True)
class Preset:
    slug: str
    name: str
    layer: Layer
    source: Source
    note: str
    stated: tuple[str, ...] = field(default=())  # sizes the paper states, for the tests

    @property
    def citation(self) -> str:
        return f"{self.source.network} [{self.source.ref}] ({self.source.key})"


def _networks() -> dict[str, dict]:
    """The networks' layer tables (fixtures/networks.json, built by fixtures/build/), by slug."""
    return {network["slug"]: network for network in json.loads(NETWORKS.read_text())}


def _layer(network: str, name: str, pool: int = 2) -> tuple[Layer, Source]:
    """A layer of a network's table with the network's minibatch, and the network's paper.
    `pool`: the pooling window the pooling operator uses (not a size of the layer)."""
    table = _NETWORKS[network]
    row = next(row for row in table["layers"] if row["name"] == name)
    sizes = ("C_in", "C_out") if row["kind"] == FC else ("C_in", "C_out", *CONV_SIZES)
    layer = Layer(row["kind"], N=table["batch"], pool=pool, **{size: row[size] for size in sizes})
    return layer, Source(table["name"], table["ref"], table["key"])


def _preset(
    slug: str, name: str, layer: tuple[Layer, Source], note: str, stated: tuple[str, ...]
) -> Preset:
    return Preset(slug, name, *layer, note, stated=stated)


_NETWORKS = _networks()
_ALEXNET_GROUPS = (
    "AlexNet splits this layer over two GPUs, so each kernel sees only half of the input "
    "channels (the paper's 5×5×48 or 3×3×192 kernels); we use the ungrouped layer (all input "
    "channels), which doubles the work of the grouped one."
)

PRESETS: dict[str, Preset] = {
    preset.slug: preset
    for preset in [
        _preset(
            "alexnet-conv1",
            "AlexNet conv1: 11×11, stride 4, 96 filters on 227×227×3",
            _layer("alexnet", "conv1", pool=3),
            "The paper states 96 kernels of 11×11×3 with stride 4 and a 55×55 output (Fig. 2). "
            "Its text says the input is 224×224×3; 227×227 is the size that gives 55×55 with "
            "stride 4 and no padding (a known erratum), so we use 227. Pooling: the paper's "
            "overlapping 3×3 window (z = 3, s = 2).",
            stated=("N", "C_in", "C_out", "K", "stride", "H_out"),
        ),
        _preset(
            "alexnet-conv2",
            "AlexNet conv2: 5×5, 256 filters on 27×27×96",
            _layer("alexnet", "conv2", pool=3),
            "The paper states 256 kernels of 5×5×48; the 27×27 size is from its Fig. 2, and "
            "padding 2 (not stated) is what keeps 27×27. " + _ALEXNET_GROUPS,
            stated=("N", "C_out", "K", "H"),
        ),
        _preset(
            "alexnet-conv3",
            "AlexNet conv3: 3×3, 384 filters on 13×13×256",
            _layer("alexnet", "conv3", pool=3),
            "The paper states 384 kernels of 3×3×256, connected to all outputs of conv2 (no "
            "grouping here); 13×13 is from its Fig. 2, padding 1 (not stated) keeps 13×13.",
            stated=("N", "C_in", "C_out", "K", "H"),
        ),
        _preset(
            "alexnet-conv4",
            "AlexNet conv4: 3×3, 384 filters on 13×13×384",
            _layer("alexnet", "conv4", pool=3),
            "The paper states 384 kernels of 3×3×192; 13×13 is from its Fig. 2, padding 1 (not "
            "stated) keeps 13×13. " + _ALEXNET_GROUPS,
            stated=("N", "C_out", "K", "H"),
        ),
        _preset(
            "alexnet-conv5",
            "AlexNet conv5: 3×3, 256 filters on 13×13×384",
            _layer("alexnet", "conv5", pool=3),
            "The paper states 256 kernels of 3×3×192; 13×13 is from its Fig. 2, padding 1 (not "
            "stated) keeps 13×13. " + _ALEXNET_GROUPS,
            stated=("N", "C_out", "K", "H"),
        ),
        _preset(
            "alexnet-fc7",
            "Fully connected 4096×4096 (AlexNet fc7)",
            _layer("alexnet", "fc7"),
            "The paper states that its fully connected layers have 4096 neurons each, so the "
            "second one maps 4096 inputs to 4096 outputs. VGG-16's fc7 [216] has the same size.",
            stated=("N", "C_in", "C_out"),
        ),
        _preset(
            "vgg16-conv3",
            "VGG-16 conv3 block: 3×3, 256 filters on 56×56×256",
            _layer("vgg-16", "conv3_2"),
            "Configuration D of the paper's Table 1 (conv3-256). The paper states 3×3 "
            "convolutions with stride 1 and padding 1 and 2×2 max pooling with stride 2 on a "
            "224×224 input; 56×56 follows after two poolings (the table gives no spatial sizes).",
            stated=("N", "C_in", "C_out", "K", "stride", "pad", "pool"),
        ),
        _preset(
            "resnet50-conv1",
            "ResNet-50 conv1: 7×7, stride 2, 64 filters on 224×224×3",
            _layer("resnet-50", "conv1", pool=3),
            "The paper's Table 1 states 7×7, 64, stride 2 with a 112×112 output, followed by a "
            "3×3 max pool with stride 2. Padding 3 (not stated) is what gives 112×112.",
            stated=("N", "C_out", "K", "stride", "H", "H_out", "pool"),
        ),
        _preset(
            "resnet50-conv2-3x3",
            "ResNet-50 conv2_x 3×3: 64 filters on 56×56×64",
            _layer("resnet-50", "conv2_1b"),
            "The middle layer of a conv2_x bottleneck block in the paper's Table 1 ([1×1, 64; "
            "3×3, 64; 1×1, 256], output 56×56); its input is the 1×1 layer's 64 channels. "
            "Padding 1 (not stated) keeps 56×56. No pooling follows this layer in ResNet; the "
            "pooling point uses a 2×2 window only for comparison.",
            stated=("N", "C_in", "C_out", "K", "H", "H_out"),
        ),
    ]
}
DEFAULT_PRESET = "alexnet-conv1"

# Bounds of the sizes a reader may set (whole numbers). They match the cost models' variable
# bounds (fixtures/cost_models.json), so that a valid layer is inside every formula's range.
SIZE_BOUNDS: dict[str, tuple[int, int]] = {
    "N": (1, 65536),
    "C_in": (1, 65536),
    "C_out": (1, 65536),
    "H": (1, 16384),
    "W": (1, 16384),
    "K": (1, 256),
    "stride": (1, 64),
    "pad": (0, 256),
    "pool": (1, 256),
    "m_tile": (1, 16),
}
FC_SIZES = ("N", "C_in", "C_out")  # the only sizes a fully connected layer has
SIZE_HELP = {
    "N": "minibatch size",
    "C_in": "input channels (features)",
    "C_out": "output channels (filters, features)",
    "H": "input height",
    "W": "input width",
    "K": "kernel size (K×K)",
    "stride": "stride",
    "pad": "zero padding on each side",
    "pool": "pooling window (for the pooling operator)",
    "m_tile": "Winograd output tile m (m×m)",
}
