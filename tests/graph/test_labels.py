"""The graph's drawing names only the nodes whose label can be read; the rest on hover."""

import itertools
import json
import re

from explorer.graph.documents import LABELLED, label_box, overlaps, place_labels


def test_it_labels_the_best_ranked_node_where_two_would_overlap():
    # Two nodes at one place, the second crowded out on every side; a third far away.
    crowd = [("a", 0.5, 0.5), ("b", 0.5, 0.5), ("c", 0.1, 0.9)]
    placed = place_labels(crowd)
    assert placed["a"] == "top center" and placed["c"] == "top center"
    assert placed.get("b") in (None, "bottom center", "middle right", "middle left")
    boxes = [label_box(x, y, placed[key]) for key, x, y in crowd if key in placed]
    assert not any(overlaps(one, other) for one, other in itertools.combinations(boxes, 2))


def test_no_two_labels_of_the_drawing_overlap(client, survey):
    html = client.get("/graph/?size=pagerank").content.decode()
    data = json.loads(re.search(r'id="graph-data" type="application/json">(.*?)<', html).group(1))
    nodes = data["nodes"]
    xs, ys = [n["x"] for n in nodes], [n["y"] for n in nodes]
    labelled = [n for n in nodes if n.get("label")]
    assert 0 < len(labelled) <= LABELLED
    boxes = [
        label_box(
            (n["x"] - min(xs)) / (max(xs) - min(xs)),
            (n["y"] - min(ys)) / (max(ys) - min(ys)),
            n["label_position"],
        )
        for n in labelled
    ]
    assert not any(overlaps(one, other) for one, other in itertools.combinations(boxes, 2))
    # Every node, labelled or not, names its work on hover.
    assert all(n["title"] for n in nodes)
