//! Published values of Tables 6.1-6.12 of Birkenheuer 2012, with the thesis' own misprints
//! corrected where the tables contradict each other (e.g. Table 6.6 LANL "02,342" = 2,342,
//! Table 6.12 SP2 "3,1427" = 31,427, Table 6.9 DataStar planning 99,210 as in Table 6.10).

/// Penalty ratios of the risk tables.
pub const RATIOS: [f64; 4] = [0.5, 1.0, 2.0, 4.0];

/// One trace's published results. Index 0 = runtime statistics, 1 = resource statistics.
#[derive(Debug, Clone, Copy)]
pub struct Published {
    /// Trace name (matches [`PWA_TRACES`](super::traces::PWA_TRACES)).
    pub trace: &'static str,
    /// Table number of the PoF table (the risk table is the next one).
    pub table: u32,
    /// PoF test: comprehensive backfilling gain.
    pub backfill: f64,
    /// PoF test: heuristic planning gain.
    pub plan: f64,
    /// PoF test: comprehensive overbooking (max gain, PoF_max) per statistics.
    pub comp: [(f64, f64); 2],
    /// PoF test: heuristic overbooking (max gain, PoF_max) per statistics.
    pub heur: [(f64, f64); 2],
    /// Risk test: comprehensive backfilling per ratio.
    pub risk_backfill: [f64; 4],
    /// Risk test: heuristic planning per ratio.
    pub risk_plan: [f64; 4],
    /// Risk test: comprehensive overbooking per statistics and ratio.
    pub risk_comp: [[f64; 4]; 2],
    /// Risk test: heuristic overbooking per statistics and ratio.
    pub risk_heur: [[f64; 4]; 2],
}

/// Tables 6.1-6.12.
pub const PUBLISHED: [Published; 6] = [
    Published {
        trace: "CTC",
        table: 1,
        backfill: 14_260.0,
        plan: 23_860.0,
        comp: [(23_300.0, 0.1), (23_110.0, 0.6)],
        heur: [(28_280.0, 0.15), (27_330.0, 0.6)],
        risk_backfill: [15_535.0, 14_260.0, 11_710.0, 6_611.0],
        risk_plan: [25_071.0, 23_862.0, 21_444.0, 16_608.0],
        risk_comp: [
            [24_571.0, 22_410.0, 19_179.0, 14_278.0],
            [24_038.0, 22_019.0, 19_357.0, 15_464.0],
        ],
        risk_heur: [
            [30_148.0, 27_528.0, 23_756.0, 19_279.0],
            [26_776.0, 25_886.0, 23_623.0, 19_785.0],
        ],
    },
    Published {
        trace: "HPC2n",
        table: 3,
        backfill: 31_250.0,
        plan: 45_150.0,
        comp: [(58_860.0, 0.9), (60_750.0, 0.9)],
        heur: [(68_570.0, 1.0), (68_570.0, 1.0)],
        risk_backfill: [34_024.0, 31_246.0, 25_691.0, 14_581.0],
        risk_plan: [47_756.0, 45_149.0, 39_936.0, 29_511.0],
        risk_comp: [
            [60_318.0, 55_789.0, 52_605.0, 48_664.0],
            [52_910.0, 52_223.0, 50_988.0, 48_329.0],
        ],
        risk_heur: [
            [64_716.0, 59_486.0, 51_189.0, 47_416.0],
            [54_085.0, 53_340.0, 51_622.0, 47_129.0],
        ],
    },
    Published {
        trace: "LANL",
        table: 5,
        backfill: 39_070.0,
        plan: 39_180.0,
        comp: [(52_460.0, 0.05), (52_970.0, 0.05)],
        heur: [(56_690.0, 0.1), (59_400.0, 0.05)],
        risk_backfill: [43_299.0, 39_070.0, 30_614.0, 13_701.0],
        risk_plan: [50_627.0, 39_180.0, 16_273.0, -29_532.0],
        risk_comp: [
            [47_325.0, 48_672.0, 42_922.0, 27_354.0],
            [52_603.0, 49_628.0, 43_032.0, 28_298.0],
        ],
        risk_heur: [
            [45_863.0, 40_557.0, 35_244.0, 7_633.0],
            [49_633.0, 47_837.0, 29_965.0, 2_342.0],
        ],
    },
    Published {
        trace: "SDSC-BLUE",
        table: 7,
        backfill: 52_420.0,
        plan: 70_390.0,
        comp: [(81_810.0, 0.6), (82_940.0, 0.05)],
        heur: [(96_620.0, 0.75), (92_260.0, 0.85)],
        risk_backfill: [57_962.0, 52_416.0, 41_325.0, 19_142.0],
        risk_plan: [77_695.0, 70_387.0, 55_772.0, 26_541.0],
        risk_comp: [
            [85_460.0, 79_439.0, 70_629.0, 58_177.0],
            [86_498.0, 82_937.0, 70_541.0, 59_896.0],
        ],
        risk_heur: [
            [95_475.0, 89_787.0, 73_210.0, 58_411.0],
            [91_319.0, 85_556.0, 79_276.0, 44_648.0],
        ],
    },
    Published {
        trace: "SDSC-DataStar",
        table: 9,
        backfill: 64_360.0,
        plan: 99_210.0,
        comp: [(114_490.0, 0.4), (110_150.0, 0.75)],
        heur: [(134_110.0, 0.6), (130_680.0, 0.7)],
        risk_backfill: [67_306.0, 64_357.0, 58_461.0, 46_669.0],
        risk_plan: [104_040.0, 99_210.0, 89_560.0, 70_250.0],
        risk_comp: [
            [119_180.0, 111_430.0, 101_030.0, 93_410.0],
            [107_420.0, 103_300.0, 100_030.0, 91_320.0],
        ],
        risk_heur: [
            [137_380.0, 129_370.0, 118_470.0, 99_020.0],
            [116_270.0, 115_410.0, 108_850.0, 105_240.0],
        ],
    },
    Published {
        trace: "SDSC-SP2",
        table: 11,
        backfill: 17_280.0,
        plan: 24_090.0,
        comp: [(27_860.0, 0.05), (27_530.0, 0.55)],
        heur: [(31_290.0, 0.1), (31_550.0, 0.55)],
        risk_backfill: [18_126.0, 17_276.0, 15_574.0, 12_171.0],
        risk_plan: [26_417.0, 24_093.0, 19_444.0, 10_147.0],
        risk_comp: [
            [14_424.0, 14_099.0, 17_865.0, 20_577.0],
            [28_168.0, 27_233.0, 24_892.0, 21_801.0],
        ],
        risk_heur: [
            [20_129.0, 9_295.0, 12_887.0, 24_675.0],
            [31_427.0, 30_598.0, 28_222.0, 25_575.0],
        ],
    },
];
