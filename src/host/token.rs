//! Secret links: a token is 256 bits from the operating system's random
//! source, written as 64 hex digits; the host keeps only its SHA-256. Game
//! ids are 64 random bits (they name a game, they grant nothing).

use sha2::{Digest, Sha256};

/// The operating system gave no random bytes.
#[derive(Debug)]
pub struct NoRandom(pub String);

impl std::fmt::Display for NoRandom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the operating system's random source failed: {}", self.0)
    }
}

impl std::error::Error for NoRandom {}

fn random_hex<const N: usize>() -> Result<String, NoRandom> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| NoRandom(e.to_string()))?;
    Ok(hex(&bytes))
}

/// A new secret token.
pub fn new_token() -> Result<String, NoRandom> {
    random_hex::<32>()
}

/// A new game id.
pub fn new_game_id() -> Result<String, NoRandom> {
    random_hex::<8>()
}

/// What the store keeps of a token. Every presented token is hashed the
/// same way, valid or not, so a guess costs the host what a real link does.
pub fn hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// Whether `id` has a game id's form (so no other text reaches a query).
pub fn is_game_id(id: &str) -> bool {
    id.len() == 16 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_distinct_and_hashed_not_kept() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert_ne!(hash(&a), hash(&b));
        assert_eq!(hash(&a), hash(&a.clone()));
        assert!(is_game_id(&new_game_id().unwrap()));
        assert!(!is_game_id("../etc/passwd0000"));
    }
}
