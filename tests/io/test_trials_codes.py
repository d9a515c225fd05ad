"""The data model: ids held as integer codes plus a vocabulary, strings built on demand."""

from __future__ import annotations

import pickle
import warnings

import h5py
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llrlab.core import DataError, Scores, Trials
from llrlab.core.calibration.fusion import align_systems
from llrlab.core.io import load_trials, write_key, write_scores, write_trials
from llrlab.core.significance import paired_trials
from llrlab.core.trials import IdCodes, trial_codes, trial_keys


def coded(strings):
    return IdCodes.encode(strings)


def test_idcodes_encode_round_trip():
    ids = IdCodes.encode(np.array(["b", "a", "b", "c"]))
    assert ids.codes.tolist() == [0, 1, 0, 2] and ids.vocab.tolist() == ["b", "a", "c"]
    assert ids.codes.dtype == np.int32 and ids.vocab.dtype == object
    assert ids.strings().tolist() == ["b", "a", "b", "c"]
    assert ids.take([3, 0]).strings().tolist() == ["c", "b"]
    assert len(ids) == 4 and "distinct=3" in repr(ids)


def test_idcodes_encode_large_uses_the_same_order():
    from llrlab.core import trials as tmod

    rng = np.random.default_rng(0)
    s = np.array([f"id{v}" for v in rng.integers(0, 500, tmod._PANDAS_ENCODE + 10)])
    big = IdCodes.encode(s)
    d = {}
    small = [d.setdefault(x, len(d)) for x in s.tolist()]
    assert big.codes.tolist() == small and big.vocab.tolist() == list(d)


def test_idcodes_of_non_strings_are_their_text():
    ids = IdCodes.encode(np.array([1, None, "1"], dtype=object))
    assert ids.strings().tolist() == ["1", "None", "1"] and ids.vocab.tolist() == ["1", "None"]


@pytest.mark.parametrize(("codes", "vocab", "match"), [
    ([0, 2], ["a", "b"], r"lie in \[0, 2\)"),
    ([0, -1], ["a", "b"], r"lie in"),
    ([0.5], ["a"], "integer"),
    ([[0]], ["a"], "1-D"),
    ([0, 1], ["a", "a"], "distinct"),
    ([0], [1], "strings"),
])
def test_idcodes_are_checked(codes, vocab, match):
    with pytest.raises(DataError, match=match):
        IdCodes(codes, np.array(vocab, dtype=object))


def test_idcodes_compact_keeps_the_order_of_appearance():
    c, v = IdCodes([3, 1, 3, 0], ["a", "b", "c", "d"]).compact()
    assert c.tolist() == [0, 1, 0, 2] and v.tolist() == ["d", "b", "a"]


def test_deferred_codes_are_computed_once():
    calls = []

    def make():
        calls.append(1)
        return np.array([1, 0], dtype=np.int32)

    ids = IdCodes.deferred(2, np.array(["a", "b"], dtype=object), make)
    assert len(ids) == 2 and not calls
    assert ids.strings().tolist() == ["b", "a"] and ids.codes.tolist() == [1, 0]
    assert calls == [1]


def test_trials_accept_codes_and_give_strings_on_demand():
    t = Trials([1.0, 2.0, 3.0], [True, False, False], model_ids=coded(["m1", "m1", "m2"]),
               segment_ids=coded(["s1", "s2", "s1"]), conditions=coded(["a", "b", "a"]))
    assert t._cols["model"]._strings is None  # nothing built yet
    assert t.model_ids.tolist() == ["m1", "m1", "m2"]
    assert t.segment_ids.tolist() == ["s1", "s2", "s1"]
    assert t.conditions.tolist() == ["a", "b", "a"]
    assert not t.model_ids.flags.writeable
    assert t.keys().tolist() == trial_keys(["m1", "m1", "m2"], ["s1", "s2", "s1"]).tolist()
    names, codes = t.condition_index()
    assert names.tolist() == ["a", "b"] and codes.tolist() == [0, 1, 0]


def test_trials_from_strings_give_codes_on_demand():
    t = Trials([1.0, 2.0], [True, False], model_ids=["m", "m"], segment_ids=["x", "y"])
    assert t.model_codes.codes.tolist() == [0, 0] and t.segment_codes.vocab.tolist() == ["x", "y"]
    assert t.model_ids.dtype.kind == "U"  # as given


def test_selection_and_rescoring_keep_the_codes():
    t = Trials([1.0, 2.0, 3.0], [True, False, True], model_ids=coded(["a", "b", "c"]),
               segment_ids=coded(["s", "s", "s"]))
    for u in (t.with_scores([0.0, 1.0, 2.0]), t.subset([2, 0]), t.with_weights([1, 1, 1]),
              t.with_source("x"), t.unlabelled(), t.unlabelled().subset([1])):
        assert u._cols["model"]._strings is None and u._cols["model"]._codes is not None
    assert t.subset([2, 0]).model_ids.tolist() == ["c", "a"]
    assert t.with_source("x").source == "x"


def test_rebuilding_from_string_attributes_reuses_the_codes():
    t = Trials([1.0, 2.0], [True, False], model_ids=coded(["a", "b"]),
               segment_ids=coded(["s", "s"]))
    u = Trials(t.scores, t.labels, None, None, t.model_ids, t.segment_ids, "copy")
    assert u.model_codes is t.model_codes


def test_lengths_are_checked():
    with pytest.raises(DataError, match="model ids has 1 entries for 2 trials"):
        Trials([1.0, 2.0], [True, False], model_ids=coded(["a"]), segment_ids=coded(["s"]))
    t = Trials([1.0, 2.0], [True, False], model_ids=coded(["a", "b"]),
               segment_ids=coded(["s", "s"]))
    with pytest.raises(DataError, match="entries for 3 trials"):
        t.unlabelled().with_scores([1.0, 2.0, 3.0])


def test_trials_are_immutable_and_pickle():
    t = Trials([1.0, 2.0], [True, False], model_ids=coded(["a", "b"]),
               segment_ids=coded(["s", "s"]), source="f")
    with pytest.raises(AttributeError):
        t.scores = np.zeros(2)
    with pytest.raises(AttributeError):
        t.model_codes.vocab = None
    u = pickle.loads(pickle.dumps(t))
    assert u.model_ids.tolist() == ["a", "b"] and u.source == "f"
    assert repr(t) == "Trials(n_tar=1, n_non=1, ids, source='f')"
    assert repr(Scores([1.0], ["m"], ["s"])) == "Scores(n=1, ids, source='')"


_IDS = st.lists(st.tuples(st.sampled_from(["a", "b", "ab", "a b", ""]),
                          st.sampled_from(["x", "y", "xy", "\u00e9"])), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(_IDS, _IDS)
def test_trial_codes_agree_with_trial_keys(a, b):
    sa = Scores(np.zeros(len(a)), [m for m, _ in a], [s for _, s in a])
    sb = Scores(np.zeros(len(b)), coded([m for m, _ in b]), coded([s for _, s in b]))
    ca, cb = trial_codes(sa, sb)
    ka, kb = sa.keys(), sb.keys()
    assert np.array_equal(ca[:, None] == cb[None, :], ka[:, None] == kb[None, :])
    assert np.array_equal(ca[:, None] == ca[None, :], ka[:, None] == ka[None, :])


def test_trial_codes_need_ids():
    with pytest.raises(DataError, match="no \\(model, segment\\) ids"):
        trial_codes(Scores([1.0]))


def _pair(tmp_path):
    rng = np.random.default_rng(3)
    m = np.array([f"m{i % 7}" for i in range(200)])
    s = np.array([f"s{i}" for i in range(200)])
    lab = rng.random(200) < 0.3
    lab[:2] = [True, False]
    a = Trials(rng.normal(size=200) + lab, lab, model_ids=m, segment_ids=s, source="a")
    perm = rng.permutation(200)[:150]
    b = Trials(rng.normal(size=150) + lab[perm], lab[perm], model_ids=m[perm],
               segment_ids=s[perm], source="b")
    return a, b


def test_pairing_loaded_trials_works_on_codes(tmp_path):
    a, b = _pair(tmp_path)
    for t, name in ((a, "a"), (b, "b")):
        write_trials(tmp_path / f"{name}.txt", t)
    la, lb = load_trials(tmp_path / "a.txt"), load_trials(tmp_path / "b.txt")
    assert la._cols["model"]._strings is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pa, pb = paired_trials(la, lb)
        ra, rb = paired_trials(a, b)
    assert pa.model_ids.tolist() == ra.model_ids.tolist()
    np.testing.assert_array_equal(pb.scores, rb.scores)
    assert np.array_equal(pa.keys(), pb.keys())


def test_fusion_alignment_reports_examples_by_name(tmp_path):
    a, b = _pair(tmp_path)
    with pytest.warns(Warning, match=r"50 of the 200 trials of a .* \(e\.g\. m\d s\d+\)"):
        (fa, fb), al = align_systems([a, b])
    assert al.n_common == 150 and al.left_out == (50, 0) and len(fa) == len(fb) == 150
    dup = Trials([1.0, 2.0], [True, False], model_ids=["m", "m"], segment_ids=["s", "s"])
    with pytest.raises(DataError, match="lists the trial m s more than once"):
        align_systems([dup, dup])


def test_hdf5_load_computes_ids_only_when_asked(tmp_path):
    full = Trials(np.arange(6.0), [True, False] * 3,
                  model_ids=["m1"] * 3 + ["m2"] * 3, segment_ids=["s1", "s2", "s3"] * 2)
    write_scores(tmp_path / "s.h5", full)
    write_key(tmp_path / "k.h5", full)
    t = load_trials(tmp_path / "s.h5", tmp_path / "k.h5")
    assert t._cols["model"]._codes._codes is None  # deferred
    assert t.model_ids.tolist() == full.model_ids.tolist()
    assert t.segment_ids.tolist() == full.segment_ids.tolist()
    with h5py.File(tmp_path / "s.h5") as f:
        assert f["score_mask"][()].all()


def test_writing_uses_codes_and_round_trips(tmp_path):
    t = Trials([0.1, -2.0, 3.5], [True, False, False], model_ids=coded(["b", "a", "b"]),
               segment_ids=coded(["x", "x", "y"]), conditions=coded(["c1", "c2", "c1"]))
    for name in ("t.txt", "t.csv", "t.tsv"):
        write_trials(tmp_path / name, t)
        back = load_trials(tmp_path / name)
        assert back.model_ids.tolist() == ["b", "a", "b"]
        assert back.conditions.tolist() == ["c1", "c2", "c1"]
        np.testing.assert_array_equal(back.scores, t.scores)
    write_scores(tmp_path / "s.h5", t)
    write_key(tmp_path / "k.h5", t)
    back = load_trials(tmp_path / "s.h5", tmp_path / "k.h5")
    assert back.model_ids.tolist() == ["b", "b", "a"]  # model-major, rows in order of appearance
    assert back.conditions.tolist() == ["c1", "c1", "c2"]


def test_extend_vocab_of_an_extension_of_the_base_is_the_identity():
    from llrlab.core.trials import _SMALL_VOCAB, extend_vocab

    base = np.array([f"s{i}" for i in range(_SMALL_VOCAB + 10)], dtype=object)
    other = np.concatenate([base, np.array(["new1", "new0"], dtype=object)])
    remap, merged = extend_vocab(base, other)
    assert merged is other and remap.tolist() == list(range(other.size))
    # any other order is looked up: the same as a dictionary would give
    other = other[::-1].copy()
    remap, merged = extend_vocab(base, other)
    assert merged.tolist() == [*base.tolist(), "new0", "new1"]
    assert merged[remap].tolist() == other.tolist()


def test_vocab_indexes_are_shared_within_the_block_only():
    from llrlab.core.trials import shared_vocab_indexes, vocab_index

    v = np.array(["a", "b"], dtype=object)
    assert vocab_index(v) is not vocab_index(v)
    with shared_vocab_indexes():
        assert vocab_index(v) is vocab_index(v)
        assert vocab_index(v.copy()) is not vocab_index(v)
    assert vocab_index(v) is not vocab_index(v)
