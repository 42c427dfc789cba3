"""Tables split over arrays: the rows a worker holds gather like one array."""

import numpy as np
import pytest

from distcfr.engine.row_table import HeldRows, RowTable, rows_of


def test_held_rows_gather_dense_pieces_and_sent_rows_like_the_whole_table():
    rng = np.random.default_rng(0)
    whole = rng.random((30, 3, 2)).astype(np.float32)
    sent = np.array([1, 4, 5, 20, 29])  # rows outside the dense pieces [8, 12) and [12, 18)
    held = HeldRows(30, [(8, whole[8:12]), (12, whole[12:18])], sent, [whole[sent[:3]], whole[sent[3:]]])
    rows = np.array([29, 8, 17, 4, 12, 1, 1, 20, 11, 5])
    assert np.array_equal(held[rows], whole[rows])
    assert np.array_equal(held[rows, :, 1], whole[rows, :, 1])
    assert held.shape == whole.shape and len(held) == 30
    with pytest.raises(KeyError):
        held.take(np.array([8, 2]))  # row 2 was never sent
    only_sent = HeldRows(30, [], sent, [whole[sent]])
    assert np.array_equal(only_sent[sent[::-1]], whole[sent[::-1]])
    with pytest.raises(KeyError):
        only_sent.take(np.array([30]))


def test_row_table_gathers_across_parts_and_sets_rows():
    whole = np.arange(20.0).reshape(10, 2)
    table = RowTable([0, 3, 3, 10], [whole[:3].copy(), whole[3:3].copy(), whole[3:].copy()])
    rows = np.array([9, 0, 4, 2])
    assert np.array_equal(table[rows], whole[rows])
    table[np.array([1, 7])] = np.array([[-1.0, -1.0], [-2.0, -2.0]])
    assert table.full()[1, 0] == -1 and table.full()[7, 1] == -2


def test_rows_of_reads_consecutive_rows_of_one_part_in_place_and_copies_the_rest():
    whole = np.arange(40.0).reshape(10, 2, 2)
    parts = [whole[2:5].copy(), whole[5:10].copy()]
    table = RowTable([2, 5, 10], parts)
    view = rows_of(table, np.arange(6, 9))  # inside the second part
    assert np.array_equal(view, whole[6:9]) and np.shares_memory(view, parts[1])
    assert np.shares_memory(rows_of(whole, np.arange(3, 7)), whole)
    for rows in (np.arange(3, 7), np.array([2, 4, 9]), np.array([7, 6]), np.array([9])):  # across parts, gaps, order
        got = rows_of(table, rows)
        assert np.array_equal(got, whole[rows])
        assert len(rows) == 1 or not np.shares_memory(got, parts[0]) and not np.shares_memory(got, parts[1])
    with pytest.raises(IndexError):
        rows_of(table, np.array([0, 1]))  # before the first part: not held


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_packed_rows_come_back_bit_for_bit_and_smaller_where_most_cells_are_zero(dtype):
    from distcfr.engine.class_blocks import pack_rows, unpack_rows

    rng = np.random.default_rng(1)
    rows = np.where(rng.random((50, 3, 8)) < 0.8, 0.0, rng.random((50, 3, 8))).astype(dtype)
    rows[0, 0, :3] = [-0.0, np.finfo(dtype).tiny, 1.0]  # a negative zero keeps its sign
    packed = pack_rows(rows)
    back = unpack_rows(*packed)
    assert back.dtype == rows.dtype and np.array_equal(back.view(np.uint8), rows.view(np.uint8))
    assert packed[1].nbytes + packed[2].nbytes < 0.35 * rows.nbytes
    empty = unpack_rows(*pack_rows(rows[:0]))
    assert empty.shape == (0, 3, 8)


def test_row_table_gathers_ascending_rows_part_by_part_like_the_whole_table():
    rng = np.random.default_rng(2)
    whole = rng.random((40, 3, 2)).astype(np.float32)
    starts = [5, 9, 9, 20, 33, 40]  # an empty part, rows before 5 not held
    table = RowTable(starts, [whole[a:b].copy() for a, b in zip(starts, starts[1:])])
    for rows in (np.array([5, 6, 9, 19, 20, 21, 39]), np.array([9, 9, 10]), np.arange(5, 40), np.array([33, 39])):
        got = table.take(rows)
        assert got.dtype == whole.dtype and np.array_equal(got, whole[rows])
    for outside in (np.array([4, 5]), np.array([38, 40])):
        with pytest.raises(IndexError):
            table.take(outside)


def test_held_rows_gather_ascending_rows_like_the_whole_table():
    rng = np.random.default_rng(3)
    whole = rng.random((30, 3, 2)).astype(np.float32)
    sent = np.array([1, 4, 5, 20, 29])
    held = HeldRows(30, [(8, whole[8:12]), (12, whole[12:18])], sent, [whole[sent[:3]], whole[sent[3:]]])
    for rows in (np.array([1, 4, 8, 11, 12, 17, 20, 29]), np.array([5, 5, 9]), np.arange(8, 18), np.array([1, 29])):
        assert np.array_equal(held.take(rows), whole[rows])
    with pytest.raises(KeyError):
        held.take(np.array([8, 18]))  # row 18 lies past the dense pieces and was never sent
