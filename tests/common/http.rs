//! Registry servers for tests: `chainsmith serve` and Python's `http.server` as child
//! processes, and a raw server of our own (a thread) for what a well-behaved server never
//! does (sleeping, cutting a body short, redirecting). Everything listens on 127.0.0.1.

use super::cli::{bin, s};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `chainsmith ARGS` with its own cache folder.
pub fn cs(cache: &Path, args: &[&str]) -> Output {
    bin().args(args).env_remove("OPENWOP_CONFIG_HOME").env("XDG_CACHE_HOME", cache).output().unwrap()
}

/// A server process, killed when dropped.
pub struct Server {
    pub child: Child,
    pub url: String,
    pub log: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// The request lines `chainsmith serve` logged so far (one JSON object each).
    pub fn requests(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
    }

    /// Wait until the log holds `n` requests (the server logs after answering).
    pub fn wait_for(&self, n: usize) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let r = self.requests();
            if r.len() >= n || start.elapsed() > Duration::from_secs(5) {
                return r;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The first stdout line of a starting server, within 10 s.
pub fn first_line(child: &mut Child) -> String {
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    rx.recv_timeout(Duration::from_secs(10)).expect("the server printed where it listens")
}

pub fn serve(dir: &Path, log: &Path) -> Server {
    let mut child = bin()
        .args(["serve", s(dir), "--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap();
    let line: Value = serde_json::from_str(&first_line(&mut child)).unwrap();
    Server { url: line["url"].as_str().unwrap().to_owned(), child, log: log.to_owned() }
}

pub fn python_serve(dir: &Path, log: &Path) -> Server {
    let mut child = Command::new("python3")
        .args(["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", s(dir)])
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap();
    // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
    let line = first_line(&mut child);
    let port = line.split(" port ").nth(1).and_then(|r| r.split_whitespace().next()).expect(&line).to_owned();
    Server { url: format!("http://127.0.0.1:{port}"), child, log: log.to_owned() }
}

/// A server of our own that answers every request with `answer(path)`, for the cases a
/// well-behaved server never produces. Each connection has a thread of its own (a slow
/// answer holds up no other); each socket read waits at most 5 s.
pub fn raw_server(answer: impl Fn(&str, &mut TcpStream) + Send + Sync + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let answer = std::sync::Arc::new(answer);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let answer = answer.clone();
            std::thread::spawn(move || {
                stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && head.len() < 16 * 1024 {
                    match stream.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => break,
                    }
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                answer(&path, &mut stream);
            });
        }
    });
    url
}

/// Serves `reg` as files, except where `special` answers first.
pub fn folder_with(reg: PathBuf, special: impl Fn(&str, &mut TcpStream) -> bool + Send + Sync + 'static) -> String {
    raw_server(move |path, stream| {
        if special(path, stream) {
            return;
        }
        let file = reg.join(path.trim_start_matches('/'));
        match std::fs::read(&file) {
            Ok(bytes) => {
                let _ =
                    write!(stream, "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", bytes.len());
                let _ = stream.write_all(&bytes);
            }
            Err(_) => {
                let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            }
        }
    })
}
