"""The stand-in's page on port 5000: serves until its agent or charm directory goes."""

import http.server
import os
import sys
import threading
import time

PAGE = (
    b'<!doctype html><html><head><title>Snappass</title></head>'
    b'<body>snappass-test: drover\'s stand-in charm</body></html>'
)


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header('content-type', 'text/html')
        self.send_header('content-length', str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


def watch(agent, charm_dir):
    while True:
        time.sleep(1)
        try:
            os.kill(agent, 0)
        except OSError:
            os._exit(0)
        if not os.path.isdir(charm_dir):
            os._exit(0)


def main():
    agent, charm_dir = int(sys.argv[1]), sys.argv[2]
    threading.Thread(target=watch, args=(agent, charm_dir), daemon=True).start()
    try:
        server = http.server.HTTPServer(('127.0.0.1', 5000), Page)
    except OSError:
        return  # another unit on this host serves the port
    server.serve_forever()


main()
