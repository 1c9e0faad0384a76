//! The digest of a file fam writes and reads back (a checkpoint, a batch
//! result or shard): `"sha256:"` and the SHA-256, in lowercase hex, of the
//! document's canonical bytes, stored in its `digest` member. The tallies'
//! own checks find counts that disagree with each other; the digest finds a
//! figure changed consistently (a damage sum, a win with the tallies kept
//! adding up), which no check of the counts can.
//!
//! The canonical bytes are the document as fam's types hold it, without its
//! `digest`, written as compact JSON in the order fam writes its members
//! (numbers as fam writes them: floating-point numbers in their shortest
//! form that reads back exactly). So a file read back is hashed as fam
//! understood it: white space, line endings or members fam does not read
//! (another tool's reformatting) do not matter, every value fam reads does.
//! It is a check against corruption and edits, not a signature: whoever
//! knows this recipe can compute a digest for a file of their own.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// How a digest starts: the algorithm.
pub const PREFIX: &str = "sha256:";

/// A document that carries its own digest.
pub trait Sealed: Serialize {
    /// The `digest` member: serialized only when `Some`, so that the
    /// canonical bytes (computed with `None`) leave it out.
    fn digest_mut(&mut self) -> &mut Option<String>;
}

/// The digest of `doc` as it serializes now (its `digest` left out when
/// `None`).
fn of<T: Serialize>(doc: &T) -> String {
    // These documents hold only string-keyed maps and plain values, which
    // serde_json always writes; were it to fail, the bytes written and read
    // back would fail alike.
    let bytes = serde_json::to_vec(doc).unwrap_or_default();
    let hash = Sha256::digest(&bytes);
    let mut out = String::with_capacity(PREFIX.len() + 64);
    out.push_str(PREFIX);
    for b in hash.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Sets `doc`'s digest to the digest of the rest of it.
pub fn seal<T: Sealed>(doc: &mut T) {
    *doc.digest_mut() = None;
    let digest = of(doc);
    *doc.digest_mut() = Some(digest);
}

/// What [`verify`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// The digest matches the content.
    Matches,
    /// The file has no digest (written by a fam from before digests).
    Missing,
}

/// The message for a digest that does not match.
pub const CHANGED: &str = "it was changed after fam wrote it: its digest does not match its content";

/// Whether `doc`'s digest is the digest of the rest of it: `Err` with
/// [`CHANGED`] (and what was found) when it is not. `doc` is left as it was.
pub fn verify<T: Sealed>(doc: &mut T) -> Result<Found, String> {
    let Some(claimed) = doc.digest_mut().take() else {
        return Ok(Found::Missing);
    };
    let actual = of(doc);
    let matches = claimed == actual;
    *doc.digest_mut() = Some(claimed);
    if matches {
        Ok(Found::Matches)
    } else {
        Err(CHANGED.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Doc {
        runs: u64,
        rate: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        digest: Option<String>,
    }

    impl Sealed for Doc {
        fn digest_mut(&mut self) -> &mut Option<String> {
            &mut self.digest
        }
    }

    #[test]
    fn a_sealed_document_verifies_until_a_value_changes() {
        let mut d = Doc {
            runs: 4_875_099_022,
            rate: 0.25,
            digest: None,
        };
        assert_eq!(verify(&mut d), Ok(Found::Missing));
        seal(&mut d);
        let digest = d.digest.clone().unwrap();
        // The canonical bytes are the compact JSON without the digest.
        let expected = Sha256::digest(br#"{"runs":4875099022,"rate":0.25}"#);
        let hex: String = expected.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(digest, format!("sha256:{hex}"));
        assert_eq!(verify(&mut d), Ok(Found::Matches));
        assert_eq!(d.digest.as_deref(), Some(digest.as_str()), "left as it was");
        d.runs += 1;
        assert_eq!(verify(&mut d), Err(CHANGED.to_string()));
        d.runs -= 1;
        d.rate = f64::from_bits(0.25f64.to_bits() + 1);
        assert!(verify(&mut d).is_err(), "the last bit of a rate counts");
    }
}
