"""A section's neighbourhood in the citation graph, from its edges (no database)."""

from explorer.hubs.neighbourhood import Neighbourhood, neighbourhood


def test_it_counts_edges_inside_out_and_in_and_ranks_the_neighbours():
    edges = [(1, 2), (1, 10), (2, 10), (11, 1), (10, 2), (12, 13)]
    assert neighbourhood(edges, inside={1, 2}) == Neighbourhood(
        internal=1,
        outgoing=2,
        incoming=2,
        # work 10: cites the section once, is cited by it twice; work 11 cites it once
        neighbours=[(10, 1, 2), (11, 1, 0)],
    )


def test_it_shows_at_most_the_given_number_of_neighbours_in_a_stable_order():
    edges = [(1, outside) for outside in (30, 20, 40)]
    assert [n[0] for n in neighbourhood(edges, {1}, shown=2).neighbours] == [20, 30]
