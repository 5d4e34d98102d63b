"""The plausibility check that keeps a wrongly measured B-tree height out of the dataset cache
(issue #11 D3: two runs on one server cached a height of 75 for a 3-level tree)."""
import pytest

from loadgen.seeding.height import plausible_height


@pytest.mark.parametrize("height,leaf_pages,rows", [
    (3, 1600, 200_000),  # the test dataset
    (3, 8164, 1_000_000),
    (2, 1, 1000),  # stale statistics of a small table say 1 leaf page; 9 pages need a root above them
    (4, 800_000, 100_000_000),  # the seed's 100M rows
])
def test_real_heights_pass(height, leaf_pages, rows):
    assert plausible_height(height, leaf_pages, rows)


@pytest.mark.parametrize("height,leaf_pages,rows", [
    (75, 1600, 210_000),  # what the red team saw cached
    (16, 800_000, 100_000_000),
    (0, 1600, 200_000),
    (9, 1600, 200_000),
])
def test_impossible_heights_are_refused(height, leaf_pages, rows):
    assert not plausible_height(height, leaf_pages, rows)
