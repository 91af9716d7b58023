//! # slarm-grid
//!
//! Static and dynamic overprovisioning for consistent performance in multicluster grids (Yigitbasi & Epema 2010).
