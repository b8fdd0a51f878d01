"""The Fire Lane, sentence by sentence (A9.22, A9.222, A9.223), through the console.

docs/rules/ASL.md lists each sentence with its status; each test names the sentence it checks.
"""

from __future__ import annotations

from pathlib import Path

from tests.asl.console import DEFENCE, play

LANE = "targets:R location:K4 mf:1 range:3 same-level:true"


async def test_a9_22_a_lane_only_with_defensive_first_fire_by_the_defender(tmp_path: Path) -> None:
    """A9.22 ¶1 s1: "Whenever the DEFENDER declares a Defensive First Fire attack …"."""
    played = await play(
        tmp_path,
        DEFENCE
        + f"""
        @bob /asl fire units:R fire-lane:true {LANE}
        /asl phase
        /asl fire weapons:HMG fire-lane:true range:3 same-level:true
        """,
    )
    assert played.refused(f"@bob /asl fire units:R fire-lane:true {LANE}")[1] == "A3"
    assert played.refused("/asl fire weapons:HMG fire-lane:true range:3 same-level:true") == (
        "A Fire Lane is declared with Defensive First Fire. (A9.22)",
        "A9.22",
    )


async def test_a9_22_a_good_order_sw_mg_manned_by_unpinned_infantry(tmp_path: Path) -> None:
    """A9.22 ¶1 s1: "… with A Good Order SW MG that is manned by unpinned Infantry"."""
    played = await play(
        tmp_path,
        DEFENCE
        + f"""
        /asl unit set name:A status:pinned reason:"PF DR 6"
        /asl fire weapons:HMG fire-lane:true {LANE}
        /asl unit set name:B status:broken reason:"MC DR 11"
        /asl fire weapons:MMG fire-lane:true {LANE}
        """,
    )
    error, rule = played.refused(f"/asl fire weapons:HMG fire-lane:true {LANE}")
    assert rule == "A9.22" and "unpinned Infantry" in error
    assert played.refused(f"/asl fire weapons:MMG fire-lane:true {LANE}")[1] == "A.7"


async def test_a9_22_each_mg_of_a_fire_group_lays_its_own_lane(tmp_path: Path) -> None:
    """A9.22 ¶1 s1 "(even as part of a FG)"; s4 "Fire Lane FG are NA; i.e., each MG must create
    a separate Fire Lane"; s2 "he must place a First Fire counter on the MG" (even on a colored
    dr that would keep its ROF)."""
    played = await play(
        tmp_path,
        DEFENCE
        + f"""
        /asl fire weapons:"HMG, MMG" units:A fire-lane:true leader:L {LANE}
        /asl weapon list
        """,
        dice="1,3",
    )
    facts = played.facts(f'/asl fire weapons:"HMG, MMG" units:A fire-lane:true leader:L {LANE}')
    assert facts["Fire Lane (HMG)"] == facts["Fire Lane (MMG)"] == "laid"
    assert "ROF (HMG)" not in facts  # the First Fire counter goes on whatever the colored dr
    listed = played.texts("/asl weapon list")
    assert all("First Fire" in line for line in listed)


async def test_a9_22_not_on_a_mg_marked_first_or_final_fire(tmp_path: Path) -> None:
    """A9.22 ¶1 s1: "… if it is not already marked with a First/Final Fire counter"."""
    played = await play(
        tmp_path,
        DEFENCE
        + f"""
        /asl fire weapons:HMG targets:R location:K3 mf:1
        /asl fire weapons:HMG fire-lane:true {LANE}
        """,
        dice="6,1",
    )
    assert played.facts("/asl fire weapons:HMG targets:R location:K3 mf:1")["ROF (HMG)"] == "lost"
    error, rule = played.refused(f"/asl fire weapons:HMG fire-lane:true {LANE}")
    assert rule == "A9.22" and "First/Final Fire marker" in error


async def test_a9_22_within_the_mgs_normal_range(tmp_path: Path) -> None:
    """A9.22 ¶1 s1 "… firing within its Normal Range" (A9.1: the number after the dash)."""
    played = await play(
        tmp_path,
        DEFENCE
        + """
        /asl fire weapons:MMG fire-lane:true targets:R location:K4 mf:1 range:13 same-level:true
        /asl fire weapons:MMG fire-lane:true targets:R location:K4 mf:1 same-level:true
        """,
    )
    assert played.refused(played.lines[-2]) == (
        "A Fire Lane is declared within Normal Range: MMG's is 12 hexes, the target is at 13. "
        "(A9.22)",
        "A9.22",
    )
    assert played.refused(played.lines[-1]) == (
        "Give range (in hexes) — a Fire Lane (within Normal Range) depends on it.",
        None,
    )


async def test_a9_22_never_beyond_16_hexes(tmp_path: Path) -> None:
    """A9.22 ¶1 s1 "within its Normal Range": no SW MG's exceeds 16 hexes (A9.1), so a lane
    beyond them is refused even when the MG's is not recorded and a leader directs the shot
    (A9.4) — found by trying it: a 20-hex leader-directed shot laid a lane."""
    shot = "/asl fire weapons:HMG leader:L fire-lane:true targets:R location:K4 mf:1"
    played = await play(
        tmp_path,
        DEFENCE.replace(" normal-range:16", "") + f"{shot} range:20 same-level:true\n",
    )
    error, rule = played.refused(played.lines[-1])
    assert rule == "A9.22" and "no SW MG's exceeds 16 hexes" in error


async def test_a9_22_not_using_tpbf(tmp_path: Path) -> None:
    """A9.22 ¶1 s1 "(but not using TPBF)"."""
    played = await play(
        tmp_path,
        DEFENCE
        + """
        /asl fire weapons:HMG fire-lane:true targets:R location:K4 mf:1 range:0 same-level:true
        /asl fire weapons:HMG fire-lane:true tpbf:true targets:R location:K4 mf:1 same-level:true
        """,
    )
    for line in played.lines[-2:]:
        assert played.refused(line) == (
            "A Fire Lane is not declared when using TPBF. (A9.22)",
            "A9.22",
        )


async def test_a9_22_at_a_same_level_target_stated_by_the_player(tmp_path: Path) -> None:
    """A9.22 ¶1 s1 "… and at a same-level (B.5) target": there is no map, so the player states
    it (same-level:), the bot refuses a lane at another level and logs the statement."""
    played = await play(
        tmp_path,
        DEFENCE
        + """
        /asl fire weapons:HMG fire-lane:true targets:R location:K4 mf:1 range:3
        /asl fire weapons:HMG fire-lane:true targets:R location:K4 mf:1 range:3 same-level:false
        /asl fire weapons:HMG targets:R location:K4 mf:1 range:3 same-level:true
        /asl fire weapons:HMG fire-lane:true targets:R location:K4 mf:1 range:3 same-level:true
        """,
        dice="4,1",
    )
    error, rule = played.refused(played.lines[-4])
    assert rule is None and "same-level:true" in error
    assert played.refused(played.lines[-3]) == (
        "A Fire Lane is declared only at a same-level target. (A9.22)",
        "A9.22",
    )
    assert played.refused(played.lines[-2])[1] == "A9.22"  # stated for no lane: refused
    laid = played.reply(played.lines[-1])
    assert dict(laid["facts"])["Fire Lane (HMG)"] == "laid"


async def test_a9_22_exc_no_lane_if_the_manning_infantry_cowered(tmp_path: Path) -> None:
    """A9.22 ¶1 s2 EXC "No Fire Lane is placed if the MG's manning Infantry Cowered …"; s5 "An
    illegally placed Fire Lane counter is removed but the MG is still marked with a First Fire
    counter"."""
    played = await play(
        tmp_path,
        DEFENCE
        + f"""
        /asl fire weapons:HMG fire-lane:true {LANE}
        /asl weapon list
        """,
        dice="3,3",
    )
    facts = played.facts(f"/asl fire weapons:HMG fire-lane:true {LANE}")
    assert facts["Cowering"] == "yes" and facts["Fire Lane"] == "none (the Infantry Cowered)"
    assert "Fire Lane (HMG)" not in facts
    assert "First Fire" in played.texts("/asl weapon list")[0]


async def test_a9_22_exc_no_lane_when_the_manning_infantry_use_subsequent_first_fire(
    tmp_path: Path,
) -> None:
    """A9.22 ¶1 s2 EXC "… and/or used Subsequent-First-Fire/FPF, during that initial First Fire
    attack" — found by trying it: a squad that had First-Fired its Inherent FP, firing again with
    an unmarked MMG, still laid a lane."""
    played = await play(
        tmp_path,
        DEFENCE
        + f"""
        /asl fire units:B range:3
        /asl fire weapons:MMG fire-lane:true {LANE}
        /asl fire weapons:HMG fire-lane:true fpf:true targets:R location:K4 mf:1 range:1
        """,
        dice="4,1",
    )
    error, rule = played.refused(f"/asl fire weapons:MMG fire-lane:true {LANE}")
    assert rule == "A9.22" and "Subsequent First Fire" in error
    assert played.refused(played.lines[-1]) == (
        "A Fire Lane attack is not Sustained Fire or FPF. (A9.22)",
        "A9.22",
    )


async def test_a9_22_a_lane_mg_fires_again_only_in_the_dfph_or_at_a_unit_entering_its_hex(
    tmp_path: Path,
) -> None:
    """A9.22 ¶2 s5: "A MG which has established a Fire Lane may not fire again until the DFPH
    [EXC: if its Location is entered by an enemy unit; 9.223]"."""
    played = await play(
        tmp_path,
        DEFENCE
        + f"""
        /asl fire weapons:HMG fire-lane:true {LANE}
        /asl fire weapons:HMG targets:R location:K5 mf:1
        /asl fire weapons:HMG tpbf:true range:0 targets:R location:J4 mf:1
        """,
        dice="4,1,2,3",
    )
    assert played.refused("/asl fire weapons:HMG targets:R location:K5 mf:1")[1] == "A9.22"
    tpbf = "/asl fire weapons:HMG tpbf:true range:0 targets:R location:J4 mf:1"
    assert played.facts(tpbf)["Fire Lane (HMG)"] == "canceled (TPBF)"
    assert "A9.223" in played.rules(tpbf)


async def test_a9_222_no_leader_drm_and_no_cowering_in_a_residual_attack(tmp_path: Path) -> None:
    """A9.222 ¶1 s4 "No CX/leader/hero DRM applies to a Fire Lane Residual FP attack"; s5 "Fire
    Lane Residual FP attacks cannot cause the fire to Cower"; A9.223 s2 "The MG malfunctions
    whenever its Fire Lane Residual FP attack DR is also an Original Malfunction DR"."""
    played = await play(
        tmp_path,
        DEFENCE
        + f"""
        /asl fire weapons:HMG fire-lane:true {LANE}
        /asl fire weapons:HMG lane-residual:true leader:L
        /asl fire weapons:HMG lane-residual:true
        /asl fire weapons:HMG lane-residual:true
        """,
        dice="4,1,2,2,6,6",
    )
    error, rule = played.refused("/asl fire weapons:HMG lane-residual:true leader:L")
    assert rule == "A9.222" and "leader" in error
    first = played.facts(played.number("/asl fire weapons:HMG lane-residual:true"))
    assert first == {"HMG": "fine", "Fire Lane": "stays"}  # doubles: no Cowering
    second = played.facts(played.number("/asl fire weapons:HMG lane-residual:true", 2))
    assert second["HMG"] == "malfunctioned" and second["Fire Lane"] == "removed"


async def test_a9_222_the_lanes_residual_attacks_after_a_fire_group_with_its_infantry(
    tmp_path: Path,
) -> None:
    """A9.22 ¶1 s1 "(even as part of a FG)" and ¶2 "A Fire Lane Residual FP counter exerts a
    unique form of Residual FP" — found by trying it: when the manning squad fired its Inherent
    FP in the Fire Group that laid the lane (so it is marked First Fire), every Residual attack
    of the lane was refused as that squad's Subsequent First Fire (A9.223); the Residual FP is
    no fire by the Infantry, and no Unit Replacement follows its DR (FB16.2: "while using its
    Inherent FP")."""
    played = await play(
        tmp_path,
        DEFENCE
        + f"""
        /asl level side:Axis level:5
        /asl fire weapons:HMG units:A fire-lane:true leader:L {LANE}
        /asl fire units:A range:2
        /asl fire weapons:HMG lane-residual:true
        """,
        dice="1,2,5,6",
    )
    laid = played.facts(f"/asl fire weapons:HMG units:A fire-lane:true leader:L {LANE}")
    assert laid["Fire Lane (HMG)"] == "laid"
    error, rule = played.refused("/asl fire units:A range:2")  # A's own SFF stays barred
    assert rule == "A9.223" and "tpbf:true" in error
    residual = played.facts("/asl fire weapons:HMG lane-residual:true")
    # DR 11 at level 5: the HMG breaks (FB16.32, B12-1) and its lane ends; A is not replaced
    assert residual == {"HMG": "malfunctioned", "Residual FP (HMG)": "none", "Fire Lane": "removed"}


async def test_a9_223_a_lane_ends_when_its_infantry_are_broken_pinned_or_eliminated(
    tmp_path: Path,
) -> None:
    """A9.223 s1: "removed only if the MG malfunctions, its manning Infantry are
    broken/pinned/eliminated, or at the end of the current MPh — whichever occurs first"."""
    played = await play(
        tmp_path,
        DEFENCE
        + f"""
        /asl fire weapons:HMG fire-lane:true {LANE}
        /asl fire weapons:MMG fire-lane:true {LANE}
        /asl unit set name:A status:eliminated reason:"CC"
        /asl unit set name:B status:pinned reason:"NMC"
        /asl fire weapons:MMG lane-residual:true
        """,
        dice="4,1,4,1",
    )
    assert "A9.223" in played.rules('/asl unit set name:A status:eliminated reason:"CC"')
    assert "A9.223" in played.rules('/asl unit set name:B status:pinned reason:"NMC"')
    assert played.refused("/asl fire weapons:MMG lane-residual:true") == (
        "MMG has no Fire Lane. (A9.22)",
        "A9.22",
    )


async def test_a9_223_a_check_the_bot_rolls_that_pins_the_squad_ends_its_lane(
    tmp_path: Path,
) -> None:
    """A9.223 s1 — found by trying it: a PF check that pinned the manning squad (Original dr 6,
    C13.31) left its lane standing."""
    played = await play(
        tmp_path,
        DEFENCE
        + f"""
        /asl fire weapons:HMG fire-lane:true {LANE}
        /asl check kind:pf unit:A
        /asl fire weapons:HMG lane-residual:true
        """,
        dice="4,1,6",
    )
    facts = played.facts("/asl check kind:pf unit:A")
    assert facts["Pin (A)"] == "pinned"
    assert facts["Fire Lane (HMG)"] == "removed (its Infantry pinned)"
    assert played.refused("/asl fire weapons:HMG lane-residual:true")[1] == "A9.22"


async def test_a9_223_a_lane_ends_in_the_same_attack_when_fb16_2_breaks_its_infantry(
    tmp_path: Path,
) -> None:
    """A9.223 s1 with FB16.2 ("Any MMC subject to, but incapable of, further quality loss is
    broken after resolution of the attack"): the break that comes with the attack laying the lane
    leaves no lane; one in a later attack removes it."""
    played = await play(
        tmp_path,
        DEFENCE.replace(
            "owner:", "captured-from:Allied owner:"
        ).replace(  # FB16.13: no FB on the MGs
            "/asl phase side:Allied", "/asl level side:Axis level:5\n/asl phase side:Allied"
        )
        + f"""
        /asl fire weapons:HMG units:A leader:L fire-lane:true {LANE}
        /asl fire weapons:MMG leader:L fire-lane:true {LANE}
        /asl fire units:B leader:L range:3
        """,
        dice="4,6,4,1,4,6",
    )
    first = played.facts(f"/asl fire weapons:HMG units:A leader:L fire-lane:true {LANE}")
    assert first["Unit Replacement (A)"] == "broken"
    assert first["Fire Lane (HMG)"] == "none (its Infantry broke)"
    assert (
        played.facts(f"/asl fire weapons:MMG leader:L fire-lane:true {LANE}")["Fire Lane (MMG)"]
        == "laid"
    )
    last = played.facts("/asl fire units:B leader:L range:3")
    assert last["Unit Replacement (B)"] == "broken"
    assert last["Fire Lane (MMG)"] == "removed (its Infantry broke)"


async def test_a9_223_the_manning_infantry_use_sff_only_when_a_tpbf_situation_cancels_it(
    tmp_path: Path,
) -> None:
    """A9.223 s3: "A MG may cancel its Fire Lane in order to regain freedom to fire elsewhere
    (/its manning Infantry may use Subsequent-First-Fire/FPF after establishing the Fire Lane)
    only if a TPBF situation occurs - in which case the Fire Lane must be canceled"."""
    played = await play(
        tmp_path,
        DEFENCE
        + f"""
        /asl fire weapons:MMG fire-lane:true {LANE}
        /asl fire units:B range:3
        /asl fire units:B range:1 fpf:true
        /asl fire units:B range:2
        /asl fire units:B range:0 tpbf:true
        /asl fire weapons:MMG lane-residual:true
        """,
        dice="4,1,2,3,2,4",
    )
    assert played.facts("/asl fire units:B range:3") == {}  # its first Defensive First Fire
    for line in ("/asl fire units:B range:1 fpf:true", "/asl fire units:B range:2"):
        error, rule = played.refused(line)
        assert rule == "A9.223" and "tpbf:true" in error
    assert played.facts("/asl fire units:B range:0 tpbf:true") == {
        "Fire Lane (MMG)": "canceled (TPBF)"
    }
    assert played.refused("/asl fire weapons:MMG lane-residual:true")[1] == "A9.22"


async def test_a9_223_every_lane_ends_with_the_mph(tmp_path: Path) -> None:
    """A9.223 s1 "… or at the end of the current MPh"."""
    played = await play(
        tmp_path,
        DEFENCE
        + f"""
        /asl fire weapons:MMG fire-lane:true {LANE}
        /asl phase
        """,
        dice="4,1",
    )
    assert "A9.223: Fire Lanes end with the MPh" in played.texts("/asl phase")
