"""What keeps ``anachron serve`` quick to answer: its listening socket, and (below) how a big corpus is opened.

No test here is timed (latency is measured in benchmarks/serve_latency.py);
each checks the property the speed rests on.
"""

import asyncio
import socket
import unittest

from anachron.cli.serve import listen
from anachron.core.errors import AnachronError


class ListeningSocketTest(unittest.TestCase):
    def test_the_socket_is_tcp_so_every_accepted_connection_gets_nodelay(self):
        # asyncio sets TCP_NODELAY on an accepted connection only when the listening socket's
        # protocol is IPPROTO_TCP; without it a response written in two pieces waits ~40 ms.
        sock = listen("127.0.0.1", 0)
        self.assertEqual(sock.proto, socket.IPPROTO_TCP)
        seen = []

        async def handle(reader, writer):
            seen.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        async def run():
            server = await asyncio.start_server(handle, sock=sock)
            reader, writer = await asyncio.open_connection("127.0.0.1", sock.getsockname()[1])
            await reader.read()  # the server closes once it has looked
            writer.close()
            server.close()

        asyncio.run(run())
        self.assertEqual(len(seen), 1)
        self.assertNotEqual(seen[0], 0)

    def test_ipv6_loopback_is_tcp_too(self):
        if not socket.has_ipv6:
            self.skipTest("no IPv6 here")
        try:
            sock = listen("::1", 0)
        except AnachronError as exc:  # a host without an IPv6 loopback
            self.skipTest(str(exc))
        with sock:
            self.assertEqual((sock.family, sock.proto), (socket.AF_INET6, socket.IPPROTO_TCP))

    def test_a_port_in_use_is_an_error_naming_the_address(self):
        first = listen("127.0.0.1", 0)
        with first:
            port = first.getsockname()[1]
            # SO_REUSEADDR does not let a second socket listen on a port another is listening on.
            with self.assertRaisesRegex(AnachronError, rf"--http: cannot listen on 127\.0\.0\.1:{port}"):
                listen("127.0.0.1", port).close()


if __name__ == "__main__":
    unittest.main()
