"""SMC using a SW (A9.12), MG To Kill (A9.61), markers where the rules put them (A9.2) and the
phase each availability check and FB16 exception needs (A3, C13.7, A24.1, FB16.51, FB16.52),
sentence by sentence through the console."""

from __future__ import annotations

from pathlib import Path

from tests.asl.console import TABLE, play

LEADERS = (
    TABLE
    + """\
/asl unit add name:L side:Axis kind:leader quality:9-1
/asl unit add name:H side:Axis kind:hero quality:1-4-9
/asl unit add name:A side:Axis kind:squad quality:4-6-7
/asl weapon add name:MMG side:Axis kind:sw_mg mg:mmg rof:2 owner:L normal-range:12
/asl weapon add name:PSK side:Axis kind:psk owner:L
/asl weapon add name:LMG side:Axis kind:sw_mg rof:1 owner:A normal-range:6
"""
)
"""A 9-1 leader L holding an MMG and a PSK, a hero H, a squad A with a LMG."""


async def test_a9_12_a_leader_who_uses_any_sw_loses_his_leadership_that_phase(
    tmp_path: Path,
) -> None:
    """A9.12 s2: "If a leader fires/uses a SW-MG/any-other-SW … he loses any leadership DRM he
    may have otherwise exerted during that fire phase" — found by trying it: a 9-1 who fired a
    PSK still directed a squad in the same phase (only MGs counted)."""
    played = await play(
        tmp_path,
        LEADERS
        + """
        /asl phase side:Axis phase:pfph
        /asl tohit gun:PSK
        /asl fire units:A leader:L
        /asl fire weapons:LMG leader:L
        """,
        dice="3,4",
    )
    assert "A9.12" in played.rules("/asl tohit gun:PSK")
    for line in ("/asl fire units:A leader:L", "/asl fire weapons:LMG leader:L"):
        error, rule = played.refused(line)
        assert rule == "A9.12" and "SW" in error


async def test_a9_12_a_leader_who_directed_fire_does_not_then_use_a_sw(tmp_path: Path) -> None:
    """A9.12 s2 read the other way (reading 16): having exerted his leadership this phase, he
    does not then fire or use a SW in it, a PSK included."""
    played = await play(
        tmp_path,
        LEADERS
        + """
        /asl phase side:Axis phase:pfph
        /asl fire units:A leader:L
        /asl tohit gun:PSK
        /asl fire weapons:MMG
        """,
        dice="3,4",
    )
    assert played.refused("/asl tohit gun:PSK")[1] == "A9.12"
    assert played.refused("/asl fire weapons:MMG")[1] == "A9.12"


async def test_a9_12_the_mg_of_smc_is_exempt_from_cowering_singly_or_two_together(
    tmp_path: Path,
) -> None:
    """A9.12 s1-s2: "a single leader may fire any one SW MG as Area Fire, while two SMC stacked
    together may fire any one SW MG counter at full FP. If a leader fires/uses a SW-MG … (either
    singly or in combination with another SMC), … the MG is exempt from Cowering" — found by
    trying it: a leader and a hero firing an MMG on doubles were ruled to Cower."""
    played = await play(
        tmp_path,
        LEADERS
        + """
        /asl phase side:Axis phase:pfph
        /asl fire weapons:MMG helper:H
        /asl fire weapons:LMG
        """,
        dice="4,4,2,2",
    )
    together = played.facts("/asl fire weapons:MMG helper:H")
    assert "Cowering" not in together and together["ROF (MMG)"] == "lost"
    assert "A9.12: L and H fire MMG at full FP" in played.texts("/asl fire weapons:MMG helper:H")
    assert played.facts("/asl fire weapons:LMG")["Cowering"] == "yes"  # a squad's SW does


async def test_a9_12_a_lone_leader_fires_his_mg_as_area_fire(tmp_path: Path) -> None:
    """A9.12 s1 "a single leader may fire any one SW MG as Area Fire" (the halving is the
    players'; the bot says it, and no Cowering)."""
    played = await play(
        tmp_path,
        LEADERS
        + """
        /asl phase side:Axis phase:pfph
        /asl fire weapons:MMG
        """,
        dice="3,3",
    )
    texts = played.texts("/asl fire weapons:MMG")
    assert any("Area Fire (FP halved)" in text for text in texts)
    assert "Cowering" not in played.facts("/asl fire weapons:MMG")


async def test_a9_61_a_mg_to_kill_attack_only_within_normal_range_and_at_full_fp(
    tmp_path: Path,
) -> None:
    """A9.61 s2: "Such an attack must be made within Normal Range of the MG, without any form of
    halved FP penalty imposed, and predesignated as an AFV To Kill attack vs a specific AFV";
    s1 "by attacking it alone (i.e., not as part of a FG)" — one MG, as /asl tohit fires."""
    played = await play(
        tmp_path,
        LEADERS
        + """
        /asl weapon add name:HMG side:Axis kind:sw_mg mg:hmg rof:3 owner:A
        /asl phase side:Axis phase:pfph
        /asl tohit gun:LMG to-kill:true range:7
        /asl tohit gun:LMG to-kill:true
        /asl tohit gun:HMG to-kill:true range:3
        /asl tohit gun:MMG to-kill:true range:4
        /asl tohit gun:PSK to-kill:true range:2
        /asl tohit gun:MMG to-kill:true range:4 helper:H
        /asl tohit gun:LMG to-kill:true range:6
        """,
        dice="4,5,3,3",
    )
    assert played.refused("/asl tohit gun:LMG to-kill:true range:7") == (
        "A MG To Kill attack is made within Normal Range: LMG's is 6 hexes, the AFV is at 7. "
        "(A9.61)",
        "A9.61",
    )
    assert played.refused("/asl tohit gun:LMG to-kill:true")[1] is None  # range needed
    assert "normal-range" in played.refused("/asl tohit gun:HMG to-kill:true range:3")[0]
    error, rule = played.refused("/asl tohit gun:MMG to-kill:true range:4")
    assert rule == "A9.61" and "Area Fire" in error  # a lone leader's MG: FP halved
    assert played.refused("/asl tohit gun:PSK to-kill:true range:2")[1] == "A9.61"
    assert "A9.61" in played.rules("/asl tohit gun:MMG to-kill:true range:4 helper:H")
    assert "A9.61" in played.rules("/asl tohit gun:LMG to-kill:true range:6")


async def test_a9_2_a_mg_that_keeps_its_rof_carries_no_marker(tmp_path: Path) -> None:
    """A9.2 s6: "Once a MG has lost its Multiple ROF, it is marked with an appropriate Prep,
    First or Final Fire counter" — found by trying it: an HMG that kept its ROF in a Fire Group
    was listed with a Prep Fire marker. It still Prep Fired: no fire in the AFPh (A3)."""
    played = await play(
        tmp_path,
        TABLE
        + """
        /asl unit add name:A side:Axis kind:squad
        /asl unit add name:B side:Axis kind:squad
        /asl weapon add name:HMG side:Axis kind:sw_mg rof:3 owner:A
        /asl weapon add name:LMG side:Axis kind:sw_mg rof:1 owner:B
        /asl phase side:Axis phase:pfph
        /asl fire weapons:"HMG, LMG"
        /asl weapon list
        /asl phase phase:afph correction:true
        /asl fire weapons:HMG
        """,
        dice="2,5",
    )
    assert played.facts('/asl fire weapons:"HMG, LMG"')["ROF (HMG)"] == "kept"
    hmg, lmg = played.texts("/asl weapon list")
    assert "Prep Fire" not in hmg and "fired this PFPh" in hmg
    assert "Prep Fire" in lmg
    assert played.refused("/asl fire weapons:HMG")[1] == "A3"


async def test_phase_gates_of_the_availability_checks(tmp_path: Path) -> None:
    """C13.7 (the FB16 EX: "During the ensuing APh … advance into CC … could theoretically
    attempt to generate an ATMM"): an ATMM check in Close Combat — found by trying it: one was
    accepted in the PFPh; A24.1: SMOKE grenades in the unit's own MPh; a PF (C13.31) and a
    Starshell (E1.92) are fired in a fire phase by the side that fires then (A3)."""
    played = await play(
        tmp_path,
        TABLE
        + """
        /asl unit add name:C side:Axis kind:squad smoke:3
        /asl unit add name:L side:Axis kind:leader quality:8-0
        /asl check kind:atmm unit:C
        /asl phase side:Axis phase:pfph
        /asl check kind:atmm unit:C
        /asl check kind:smoke unit:C
        /asl check kind:pf unit:C
        /asl check kind:starshell unit:L usage:3
        /asl phase
        /asl check kind:smoke unit:C
        /asl check kind:pf unit:C
        /asl phase phase:ccph correction:true
        /asl check kind:atmm unit:C
        /asl check kind:pf unit:C
        """,
        dice="2,2,2,3",
    )
    assert played.refused(played.number("/asl check kind:atmm unit:C"))[1] == "A3"
    error, rule = played.refused(played.number("/asl check kind:atmm unit:C", 2))
    assert rule == "C13.7" and "Close Combat" in error
    assert played.refused(played.number("/asl check kind:smoke unit:C"))[1] == "A24.1"
    assert played.facts(played.number("/asl check kind:pf unit:C"))["PF (C)"] == "obtained"
    assert played.facts("/asl check kind:starshell unit:L usage:3")["Starshell (L)"] == "available"
    assert played.facts(played.number("/asl check kind:smoke unit:C", 2))["SMOKE (C)"] == "placed"
    assert played.refused(played.number("/asl check kind:pf unit:C", 2))[1] == "A3"  # Axis MPh
    assert played.facts(played.number("/asl check kind:atmm unit:C", 3))["ATMM (C)"] == "obtained"
    assert played.refused(played.number("/asl check kind:pf unit:C", 3))[1] == "C13.31"


async def test_atmm_as_cc_reaction_fire_by_the_defender_in_the_mph(tmp_path: Path) -> None:
    """C13.7 read with the CC of the MPh (reading): the DEFENDER's CC Reaction Fire at an AFV
    is Close Combat; the moving side's is not."""
    played = await play(
        tmp_path,
        TABLE
        + """
        /asl unit add name:C side:Axis kind:squad
        @bob /asl unit add name:R side:Allied kind:squad
        /asl phase side:Allied phase:mph
        /asl check kind:atmm unit:C
        @bob /asl check kind:atmm unit:R
        """,
        dice="3",
    )
    assert played.facts("/asl check kind:atmm unit:C")["ATMM (C)"] == "obtained"
    assert played.refused("@bob /asl check kind:atmm unit:R")[1] == "C13.7"


async def test_fb16_52_ovr_prevention_is_fire_in_the_enemys_mph(tmp_path: Path) -> None:
    """FB16.52 "[EXC: OVR Prevention C5.64]": fire at an AFV overrunning in its MPh — found by
    trying it: claimed in the firer's own PFPh, it was accepted; FB16.51 "[EXC: FPF]": FPF
    only in the MPh (A8.31)."""
    played = await play(
        tmp_path,
        TABLE
        + """
        /asl level side:Axis level:4
        /asl unit add name:C side:Axis kind:crew
        /asl weapon add name:PaK side:Axis kind:gun rof:1 owner:C
        /asl phase side:Axis phase:pfph
        /asl tohit gun:PaK intensive:true ovr-prevention:true
        /asl phase phase:mph side:Allied correction:true
        /asl tohit gun:PaK intensive:true ovr-prevention:true
        """,
        dice="2,3",
    )
    error, rule = played.refused(
        played.number("/asl tohit gun:PaK intensive:true ovr-prevention:true")
    )
    assert rule == "FB16.52" and "Movement Phase" in error
    allowed = played.number("/asl tohit gun:PaK intensive:true ovr-prevention:true", 2)
    assert played.rules(allowed)[:3] == ["C3", "C5.6", "FB16.52"]


async def test_a9_73_a_gun_destroyed_instead_of_firing_is_a_use_of_the_gun(tmp_path: Path) -> None:
    """A9.73: "A SW/Gun may be destroyed or deliberately malfunctioned (instead of firing it)";
    the reply said "a use of the SW" for a Gun as well."""
    played = await play(
        tmp_path,
        TABLE
        + """
        /asl unit add name:C side:Axis kind:crew
        /asl unit add name:A side:Axis kind:squad
        /asl weapon add name:PaK side:Axis kind:gun owner:C
        /asl weapon add name:LMG side:Axis kind:sw_mg rof:1 owner:A
        /asl phase side:Axis phase:pfph
        /asl weapon destroy name:PaK
        /asl weapon destroy name:LMG
        """,
    )
    assert played.texts("/asl weapon destroy name:PaK")[-1] == (
        "A9.73: C destroys PaK instead of firing it (a use of the Gun)"
    )
    assert played.texts("/asl weapon destroy name:LMG")[-1].endswith("(a use of the SW)")


async def test_a9_74_a_final_kia_comes_from_an_ift_attack_of_a_fire_phase(tmp_path: Path) -> None:
    """A9.74 s1: "When a Final KIA result occurs on the IFT … make a dr on the same column of the
    IFT" and s3 "A -1 drm applies … if the KIA was due to a fully-tracked AFV OVR"; "See 11.13
    for Random SW/Gun destruction occurring in CC" — found by trying it: /asl weapon kia was
    rolled before any Player Turn, in the Rally Phase and in the Close Combat Phase (no IFT
    attack happens there), and the OVR −1 was applied in the Prep Fire Phase (an OVR happens in
    the Movement Phase)."""
    played = await play(
        tmp_path,
        LEADERS
        + """
        /asl weapon kia weapons:LMG kia:3 k:5
        /asl phase side:Axis phase:rph
        /asl weapon kia weapons:LMG kia:3 k:5
        /asl phase phase:ccph correction:true
        /asl weapon kia weapons:LMG kia:3 k:5
        /asl phase phase:pfph correction:true
        /asl weapon kia weapons:LMG kia:3 k:5 ovr:true
        /asl weapon kia weapons:LMG kia:3 k:5
        /asl phase
        @bob /asl unit add name:R side:Allied kind:squad
        @bob /asl weapon add name:DP side:Allied kind:sw_mg rof:1 owner:R
        /asl weapon kia weapons:DP kia:3 k:5 ovr:true
        """,
        dice="6,6",
    )
    kia = "/asl weapon kia weapons:LMG kia:3 k:5"
    error, rule = played.refused(played.number(kia))
    assert rule == "A9.74" and "No Player Turn has begun" in error
    assert played.refused(played.number(kia, 2)) == (
        "A Final KIA on the IFT comes from an attack in a fire phase (PFPh, MPh, DFPh, AFPh), "
        "not in the Rally Phase. (A9.74)",
        "A9.74",
    )
    error, rule = played.refused(played.number(kia, 3))
    assert rule == "A9.74" and "Close Combat destroys weapons by its own rule, 11.13" in error
    error, rule = played.refused(kia + " ovr:true")
    assert rule == "A9.74" and "Movement Phase" in error
    assert played.facts(played.number(kia, 4))["LMG"] == "no effect"  # dr 6: PFPh
    assert played.texts("/asl weapon kia weapons:DP kia:3 k:5 ovr:true")[-1] == (
        "A9.74: SW destruction dr 6, Final 5 ≤ 5: K — DP malfunctioned"
    )
