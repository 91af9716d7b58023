//! Serde for the ndarray-backed tables in the nested-list form they had as `Vec<Vec<_>>`
//! (`[[row 0], [row 1], ...]`), so JSON written by earlier versions still loads and a table
//! reads the same in any JSON tool.

use ndarray::Array2;
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One 2-D table as a list of rows.
struct Rows<'a, T>(&'a Array2<T>);

impl<T: Serialize + Clone> Serialize for Rows<'_, T> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut seq = ser.serialize_seq(Some(self.0.nrows()))?;
        for row in self.0.rows() {
            match row.as_slice() {
                Some(sl) => seq.serialize_element(sl)?,
                None => seq.serialize_element(&row.to_vec())?,
            }
        }
        seq.end()
    }
}

/// A table from equally long rows (none: the empty 0 × 0 table).
fn from_rows<T, E: serde::de::Error>(rows: Vec<Vec<T>>) -> Result<Array2<T>, E> {
    let (nr, nc) = (rows.len(), rows.first().map_or(0, Vec::len));
    if rows.iter().any(|r| r.len() != nc) {
        return Err(E::custom("table rows of different lengths"));
    }
    Array2::from_shape_vec((nr, nc), rows.into_iter().flatten().collect()).map_err(E::custom)
}

/// `#[serde(with = "array2")]` for an `Array2<T>` field.
pub(crate) mod array2 {
    use super::*;

    pub(crate) fn serialize<T: Serialize + Clone, S: Serializer>(
        a: &Array2<T>,
        ser: S,
    ) -> Result<S::Ok, S::Error> {
        Rows(a).serialize(ser)
    }

    pub(crate) fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        de: D,
    ) -> Result<Array2<T>, D::Error> {
        from_rows(Vec::<Vec<T>>::deserialize(de)?)
    }
}

/// `#[serde(with = "vec_array2")]` for a `Vec<Array2<T>>` field (one table per decision point).
pub(crate) mod vec_array2 {
    use super::*;

    pub(crate) fn serialize<T: Serialize + Clone, S: Serializer>(
        v: &[Array2<T>],
        ser: S,
    ) -> Result<S::Ok, S::Error> {
        let mut seq = ser.serialize_seq(Some(v.len()))?;
        for a in v {
            seq.serialize_element(&Rows(a))?;
        }
        seq.end()
    }

    pub(crate) fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        de: D,
    ) -> Result<Vec<Array2<T>>, D::Error> {
        Vec::<Vec<Vec<T>>>::deserialize(de)?
            .into_iter()
            .map(from_rows)
            .collect::<Result<Vec<_>, D::Error>>()
    }
}
