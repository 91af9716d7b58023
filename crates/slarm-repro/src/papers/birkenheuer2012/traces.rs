//! The six PWA traces of the evaluation (Birkenheuer 2012, Table 5.2 and the Chapter 6 text):
//! archive files, the machine sizes, occurrence factors and input utilisations the thesis
//! prints, and its training-set sizes.

/// One PWA trace of the evaluation (Table 5.2 and the Chapter 6 text).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TraceSpec {
    /// Short name used in tables and cell ids.
    pub name: &'static str,
    /// Archive file name.
    pub file: &'static str,
    /// Machine size used by the thesis (CTC 430, SP2 128; the cleaned logs' headers differ).
    pub machine: usize,
    /// Printed occurrence factor.
    pub factor: f64,
    /// Printed "Input Util." of the 20k test jobs, in percent.
    pub input_util_pct: f64,
    /// Training jobs quoted in Chapter 6.
    pub training_ch6: usize,
}

/// The six PWA traces of Table 5.2 (machine sizes and factors as printed in Chapter 6).
pub const PWA_TRACES: [TraceSpec; 6] = [
    TraceSpec {
        name: "CTC",
        file: "CTC-SP2-1996-3.1-cln.swf.gz",
        machine: 430,
        factor: 0.15,
        input_util_pct: 29.67,
        training_ch6: 30_025,
    },
    TraceSpec {
        name: "HPC2n",
        file: "HPC2N-2002-2.2-cln.swf.gz",
        machine: 240,
        factor: 0.1,
        input_util_pct: 20.18,
        training_ch6: 154_472,
    },
    TraceSpec {
        name: "LANL",
        file: "LANL-CM5-1994-4.1-cln.swf.gz",
        machine: 1024,
        factor: 0.26,
        input_util_pct: 51.4,
        training_ch6: 49_993,
    },
    TraceSpec {
        name: "SDSC-BLUE",
        file: "SDSC-BLUE-2000-4.2-cln.swf.gz",
        machine: 1152,
        factor: 0.1175,
        input_util_pct: 23.5,
        training_ch6: 133_613,
    },
    TraceSpec {
        name: "SDSC-DataStar",
        file: "SDSC-DS-2004-2.1-cln.swf.gz",
        machine: 1664,
        factor: 0.1,
        input_util_pct: 21.54,
        training_ch6: 28_491,
    },
    TraceSpec {
        name: "SDSC-SP2",
        file: "SDSC-SP2-1998-4.2-cln.swf.gz",
        machine: 128,
        factor: 0.3107,
        input_util_pct: 62.14,
        training_ch6: 16_009,
    },
];
