//! A minimal W3C WebDriver client for Debian's chromedriver: plain HTTP/1.1 over a local TCP
//! socket, JSON bodies, just the commands `report-check` needs (new session, navigate, execute
//! a script, browser log, screenshot, window size).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

/// Chromium's flags that work headless on this machine (closed network, root, no GPU).
const CHROMIUM_FLAGS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// A running chromedriver with one browser session; both end on drop.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
}

fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(120)))
        .map_err(|e| e.to_string())?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).map_err(|e| e.to_string())?;
    let payload = read_response(&mut s)?;
    let v: Value = serde_json::from_slice(&payload)
        .map_err(|e| format!("chromedriver {method} {path}: bad JSON: {e}"))?;
    if let Some(err) = v["value"].get("error") {
        return Err(format!(
            "chromedriver {method} {path}: {err}: {}",
            v["value"]["message"].as_str().unwrap_or("")
        ));
    }
    Ok(v["value"].clone())
}

/// Reads one HTTP response body: by Content-Length, else chunked, else to the end (chromedriver
/// may keep the connection open, so reading to the end alone can hang).
fn read_response(s: &mut TcpStream) -> Result<Vec<u8>, String> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    let head_end = loop {
        if let Some(p) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        let n = s.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("chromedriver: connection closed before the headers".into());
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).to_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    let chunked = head.contains("transfer-encoding: chunked");
    let mut body = raw[head_end..].to_vec();
    loop {
        let done = match length {
            Some(n) => body.len() >= n,
            None if chunked => body.windows(5).any(|w| w == b"0\r\n\r\n"),
            None => false,
        };
        if done {
            break;
        }
        let n = s.read(&mut buf).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&buf[..n]);
    }
    if let Some(n) = length {
        body.truncate(n);
        Ok(body)
    } else if chunked {
        dechunk(&body)
    } else {
        Ok(body)
    }
}

fn dechunk(mut b: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let eol = b
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("bad chunked body")?;
        let size_text = String::from_utf8_lossy(&b[..eol]).trim().to_string();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("0"), 16)
            .map_err(|e| e.to_string())?;
        b = &b[eol + 2..];
        if size == 0 {
            return Ok(out);
        }
        out.extend_from_slice(b.get(..size).ok_or("truncated chunk")?);
        b = b.get(size + 2..).unwrap_or(&[]);
    }
}

/// Standard base64 (RFC 4648) to bytes; whitespace is skipped.
pub fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    let val = |c: u8| -> Result<u32, String> {
        Ok(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(format!("bad base64 byte {c}")),
        } as u32)
    };
    let clean: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c)? << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len().saturating_sub(1)]);
    }
    Ok(out)
}

fn free_port() -> Result<u16, String> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(l.local_addr().map_err(|e| e.to_string())?.port())
}

impl Browser {
    /// Starts chromedriver and a headless Chromium session with a fresh profile in `profile`.
    pub fn start(profile: &Path, width: u32, height: u32) -> Result<Self, String> {
        let port = free_port()?;
        let driver = Command::new("/usr/bin/chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("/usr/bin/chromedriver: {e}"))?;
        let mut b = Self {
            driver,
            port,
            session: String::new(),
        };
        let mut ready = false;
        for _ in 0..100 {
            if http(port, "GET", "/status", None).is_ok_and(|v| v["ready"] == json!(true)) {
                ready = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        if !ready {
            return Err("chromedriver did not become ready within 10 s".into());
        }
        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|s| s.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile.display()));
        args.push(format!("--window-size={width},{height}"));
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": args},
            "goog:loggingPrefs": {"browser": "ALL"},
        }}});
        let v = http(port, "POST", "/session", Some(&caps))?;
        b.session = v["sessionId"]
            .as_str()
            .ok_or("chromedriver: no session id")?
            .to_string();
        Ok(b)
    }

    fn cmd(&self, method: &str, what: &str, body: Option<&Value>) -> Result<Value, String> {
        http(
            self.port,
            method,
            &format!("/session/{}/{what}", self.session),
            body,
        )
    }

    /// Loads `url` and waits for its `load` event.
    pub fn goto(&self, url: &str) -> Result<(), String> {
        self.cmd("POST", "url", Some(&json!({ "url": url })))
            .map(drop)
    }

    /// Runs a script (the body of a function) in the page and returns its value.
    pub fn execute(&self, script: &str) -> Result<Value, String> {
        self.cmd(
            "POST",
            "execute/sync",
            Some(&json!({"script": script, "args": []})),
        )
    }

    /// The browser console's entries since the last call (level, message).
    pub fn console(&self) -> Result<Vec<(String, String)>, String> {
        let v = self.cmd("POST", "se/log", Some(&json!({"type": "browser"})))?;
        Ok(v.as_array()
            .map(|a| {
                a.iter()
                    .map(|e| {
                        (
                            e["level"].as_str().unwrap_or("").to_string(),
                            e["message"].as_str().unwrap_or("").to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default())
    }

    /// A PNG of the viewport.
    pub fn screenshot(&self) -> Result<Vec<u8>, String> {
        let v = self.cmd("GET", "screenshot", None)?;
        base64_decode(v.as_str().ok_or("screenshot: not a string")?)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = http(
                self.port,
                "DELETE",
                &format!("/session/{}", self.session),
                None,
            );
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_known_vectors() {
        // RFC 4648 §10 test vectors.
        for (plain, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64_decode(enc).unwrap(), plain.as_bytes(), "{enc}");
        }
        assert!(base64_decode("Zm9v!").is_err());
    }

    #[test]
    fn chunked_bodies_are_joined() {
        assert_eq!(
            dechunk(b"4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n").unwrap(),
            b"Wikipedia"
        );
    }
}
