"""cdp.py -- headless Chromium driven through the DevTools protocol over a
pipe (--remote-debugging-pipe: commands on fd 3, answers on fd 4, each a JSON
text ended by a NUL), so the test needs nothing beyond Python's standard
library.  One page, opened from disk; evaluate() runs JavaScript in it."""
import fcntl
import json
import os
import subprocess
import time


class Browser:
    def __init__(self, work_dir):
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        # Chromium reads commands on its fd 3 and writes answers on its fd 4.
        # (Both are first moved above 10, so that neither is overwritten;
        # close_fds would close 3 and 4 after this runs, and Python's other
        # descriptors are not inherited anyway.)
        def wire():
            reads, writes = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_chrome_r, from_chrome_w))
            os.dup2(reads, 3)
            os.dup2(writes, 4)
        self._log = open(os.path.join(work_dir, "chromium.log"), "ab")
        self._process = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--remote-debugging-pipe", "--user-data-dir=" + os.path.join(work_dir, "profile"),
             "--window-size=1400,1000", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log, preexec_fn=wire,
            close_fds=False, env=dict(os.environ, HOME=work_dir))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next_id = 0
        self._session = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self._session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")

    def call(self, method, **params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if self._session and not method.startswith("Target."):
            message["sessionId"] = self._session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def _read(self):
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe (see chromium.log)")
            self._buffer += chunk
        text, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(text)

    def open(self, url):
        self.call("Page.navigate", url=url)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, seconds):
        """Polls until the expression is truthy; its value, or None after `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                value = self.evaluate(expression)
            except RuntimeError:
                value = None  # the page is still loading
            if value:
                return value
            time.sleep(0.05)
        return None

    def type_text(self, text):
        """Types into the focused element, as a person pasting would."""
        self.call("Input.insertText", text=text)

    def close(self):
        try:
            self.call("Browser.close")
        except RuntimeError:
            pass
        self._process.wait(timeout=20)
        self._log.close()
