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
// - A parent that dies (SIGKILL, a crash) cannot stop its children. The parent holds this
//   process's standard input open; the kernel closes it when the parent dies, for any reason, and
//   the end of input here ends the server. No orphan keeps the database directory.
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class DynamoDbLocalLauncher {
  private static final String LOOPBACK = "127.0.0.1";

  public static void main(String[] args) throws Exception {
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
