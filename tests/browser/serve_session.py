"""A `bfv render --serve` run watched by Debian's headless Chromium, driven over the DevTools
protocol (CDP) with python3-websocket: what the browser test and bench/serve-bench.py share.
"""
import base64
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request

import websocket  # python3-websocket

CHROMIUM_NAMES = ("chromium", "chromium-browser")


def find_chromium():
    """The Chromium executable, or None when it is not installed."""
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def wait_for(what, check, timeout_s=120.0, poll_s=0.05):
    """Calls `check` until it returns a true value (returned); raises after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(poll_s)


class Run:
    """`bfv render ... --serve 0` in a process of its own (under `launcher`, e.g. mpiexec -n 4);
    `url` is the page's address with its token, read from the run's first lines."""

    def __init__(self, bfv, args, out_dir, launcher=()):
        self.out_dir = out_dir
        self.process = subprocess.Popen(
            list(launcher) + [bfv, "render", "--serve", "0", "--out", out_dir] + args,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = []
        self.url = None
        deadline = time.monotonic() + 120
        while self.url is None:
            line = self.process.stdout.readline()
            if not line or time.monotonic() > deadline:
                raise RuntimeError("bfv render printed no URL:\n" + "".join(self.lines))
            self.lines.append(line)
            match = re.search(r"open (http://\S+) to watch", line)
            if match:
                self.url = match.group(1)

    def wait(self, timeout_s=120):
        """Waits for the run to end; returns its exit code and whole output."""
        rest, _ = self.process.communicate(timeout=timeout_s)
        return self.process.returncode, "".join(self.lines) + rest

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class Browser:
    """Headless Chromium with one page, driven over CDP."""

    def __init__(self, chromium, width=1280, height=720):
        self.profile = tempfile.mkdtemp(prefix="bfv-chromium-")
        self.process = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--remote-debugging-port=0", f"--user-data-dir={self.profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        port = wait_for("Chromium's DevTools port",
                        lambda: os.path.exists(port_file) and open(port_file).readline().strip())
        pages = wait_for("Chromium's page", lambda: [
            t for t in json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json"))
            if t["type"] == "page"])
        self.cdp = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=120,
                                               suppress_origin=True)
        self.next_id = 0

    def call(self, method, **params):
        """Sends one CDP command and returns its result (events in between are skipped)."""
        self.next_id += 1
        self.cdp.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.cdp.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url):
        self.call("Page.navigate", url=url)

    def key(self, key, code, virtual_key, up=True):
        """Presses (and, with `up`, releases) a key as a user would."""
        params = dict(key=key, code=code, windowsVirtualKeyCode=virtual_key)
        self.call("Input.dispatchKeyEvent", type="keyDown", **params)
        if up:
            self.call("Input.dispatchKeyEvent", type="keyUp", **params)

    def key_up(self, key, code, virtual_key):
        self.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code,
                  windowsVirtualKeyCode=virtual_key)

    def canvas_png(self):
        """The page's canvas as PNG bytes (the frame as the page shows it, full size)."""
        data_url = self.evaluate("document.getElementById('frame').toDataURL('image/png')")
        return base64.b64decode(data_url.split(",", 1)[1])

    def screenshot_png(self):
        """The whole page as the browser shows it, PNG bytes."""
        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])

    def close(self):
        try:
            self.cdp.close()
        finally:
            self.process.kill()
            self.process.wait()
            shutil.rmtree(self.profile, ignore_errors=True)


def png_rgb(data):
    """A PNG's pixels as a flat RGB byte string and its size (python3-pil)."""
    from PIL import Image
    image = Image.open(io.BytesIO(data)).convert("RGB")
    return image.tobytes(), image.size
