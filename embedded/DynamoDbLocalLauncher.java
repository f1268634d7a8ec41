// Starts DynamoDB Local listening on 127.0.0.1 only, and stops it when its parent goes away.
// Compiled once and started by embedded/dynamodb-local.ts (`java -cp DynamoDBLocal.jar:<class
// dir> DynamoDbLocalLauncher <DynamoDB Local's own options>`, or from source where it cannot compile).
//
// Why this exists:
// - DynamoDB Local has no option for its listening address: its server builds a Jetty Server from
//   a port alone, whose connector binds every interface, so any host on the network could read
//   and write the database. The connector is only configured when built and binds when the server
//   starts, so setting its host in between binds it to loopback. Its options are parsed by
//   DynamoDB Local's own ServerRunner, so they stay exactly the jar's.
// - DynamoDB Local accepts any credentials, so any local user could read and write the database.
//   The first line of standard input is the access key id it must be signed with (an empty line:
//   none, for the tests' throwaway instances); a request naming another is answered 403 before
//   DynamoDB Local sees it. The key is a 256-bit secret of the controller's, never on a command line
//   (which every user reads in /proc); the signature itself is not checked (docs/reliability.md,
//   "What isolation remains").
// - A parent that dies (SIGKILL, a crash) cannot stop its children. The parent holds this
//   process's standard input open; the kernel closes it when the parent dies, for any reason, and
//   the end of input here ends the server. No orphan keeps the database directory.
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class DynamoDbLocalLauncher {
  private static final String LOOPBACK = "127.0.0.1";

  /** DynamoDB's own answer to an unknown access key (as AWS sends it, but 403: the request is refused, not malformed). */
  private static final byte[] REFUSAL = ("{\"__type\":\"com.amazonaws.dynamodb.v20120810#UnrecognizedClientException\","
      + "\"message\":\"The security token included in the request is invalid.\"}").getBytes(StandardCharsets.UTF_8);

  /** Lets through only requests signed with `accessKeyId` (the `Credential=<key>/...` of SigV4's Authorization). */
  static final class AccessKeyGuard extends Handler.Wrapper {
    private final byte[] expected;

    AccessKeyGuard(Handler inner, String accessKeyId) {
      super(inner);
      this.expected = accessKeyId.getBytes(StandardCharsets.UTF_8);
    }

    static String accessKeyOf(String authorization) {
      if (authorization == null) return null;
      int start = authorization.indexOf("Credential=");
      if (start < 0) return null;
      start += "Credential=".length();
      int end = authorization.indexOf('/', start);
      return end < 0 ? null : authorization.substring(start, end);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      String presented = accessKeyOf(request.getHeaders().get(HttpHeader.AUTHORIZATION));
      // Constant time: the comparison must not tell how much of a guess was right.
      if (presented != null && MessageDigest.isEqual(expected, presented.getBytes(StandardCharsets.UTF_8))) {
        return super.handle(request, response, callback);
      }
      response.setStatus(403);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/x-amz-json-1.0");
      response.write(true, ByteBuffer.wrap(REFUSAL), callback);
      return true;
    }
  }

  /** One line of standard input, read a byte at a time: the rest of the stream is the watchdog's. */
  private static String firstLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = System.in.read(); b != -1 && b != '\n'; b = System.in.read()) line.write(b);
    return line.toString(StandardCharsets.UTF_8).trim();
  }

  public static void main(String[] args) throws Exception {
    String accessKeyId = firstLine();
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    int bound = 0;
    for (Connector connector : server.getConnectors()) {
      if (connector instanceof ServerConnector) {
        ((ServerConnector) connector).setHost(LOOPBACK);
        bound++;
      }
    }
    // A DynamoDB Local whose server is built differently must not silently listen everywhere.
    if (bound == 0) {
      System.err.println("DynamoDbLocalLauncher: no connector found to bind to " + LOOPBACK + "; refusing to start");
      System.exit(2);
    }
    if (!accessKeyId.isEmpty()) {
      // Nor silently accept anyone.
      if (server.getHandler() == null) {
        System.err.println("DynamoDbLocalLauncher: no handler found to guard; refusing to start");
        System.exit(2);
      }
      server.setHandler(new AccessKeyGuard(server.getHandler(), accessKeyId));
    }
    Thread watchdog = new Thread(() -> {
      try {
        while (System.in.read() != -1) {
          // Input is not expected; only its end matters.
        }
      } catch (Exception e) {
        // A broken pipe is the parent's death too.
      }
      System.err.println("DynamoDbLocalLauncher: parent gone (standard input closed); stopping");
      System.exit(0);
    }, "parent-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    proxy.start();
    System.out.println("DynamoDbLocalLauncher: listening on " + LOOPBACK);
  }
}
