// A minimal SPARQL endpoint over a Jena TDB2 dataset, for the benchmark harness (jena.ts compiles
// and starts it). Debian's libapache-jena-java ships no Fuseki, so this is the JDK's own HTTP server
// calling ARQ: GET ?query=, POST application/sparql-query or form-encoded query=. Each query runs in a
// read transaction and its whole answer is written at once (JSON results, or N-Triples for graphs).
//
// usage: java -Dsun.net.httpserver.nodelay=true -cp ... JenaServer TDB2_DIR PORT THREADS TIMEOUT_MS

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.jena.query.Dataset;
import org.apache.jena.query.Query;
import org.apache.jena.query.QueryCancelledException;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.query.QueryExecutionFactory;
import org.apache.jena.query.QueryFactory;
import org.apache.jena.query.ResultSetFormatter;
import org.apache.jena.riot.Lang;
import org.apache.jena.riot.RDFDataMgr;
import org.apache.jena.system.Txn;
import org.apache.jena.tdb2.TDB2Factory;

public class JenaServer {
  public static void main(String[] args) throws IOException {
    Dataset dataset = TDB2Factory.connectDataset(args[0]);
    int port = Integer.parseInt(args[1]);
    int threads = Integer.parseInt(args[2]);
    long timeoutMs = Long.parseLong(args[3]);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 128);
    server.createContext("/sparql", exchange -> answer(exchange, dataset, timeoutMs));
    server.setExecutor(Executors.newFixedThreadPool(threads));
    server.start();
    System.out.println("listening on http://127.0.0.1:" + server.getAddress().getPort() + "/sparql");
  }

  private static void answer(HttpExchange exchange, Dataset dataset, long timeoutMs) throws IOException {
    try {
      String text = queryText(exchange);
      if (text == null) {
        reply(exchange, 400, "text/plain", "no query".getBytes(StandardCharsets.UTF_8));
        return;
      }
      Query query = QueryFactory.create(text);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      String type = Txn.calculateRead(dataset, () -> {
        try (QueryExecution execution = QueryExecutionFactory.create(query, dataset)) {
          execution.setTimeout(timeoutMs, TimeUnit.MILLISECONDS);
          if (query.isSelectType()) {
            ResultSetFormatter.outputAsJSON(out, execution.execSelect());
            return "application/sparql-results+json";
          }
          if (query.isAskType()) {
            ResultSetFormatter.outputAsJSON(out, execution.execAsk());
            return "application/sparql-results+json";
          }
          RDFDataMgr.write(out, query.isConstructType() ? execution.execConstruct() : execution.execDescribe(), Lang.NTRIPLES);
          return "application/n-triples";
        }
      });
      reply(exchange, 200, type, out.toByteArray());
    } catch (QueryCancelledException e) {
      reply(exchange, 503, "text/plain", "timeout".getBytes(StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      reply(exchange, 400, "text/plain", String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8));
    }
  }

  private static String queryText(HttpExchange exchange) throws IOException {
    String fromUrl = param(exchange.getRequestURI().getRawQuery());
    if (fromUrl != null) return fromUrl;
    if (!"POST".equals(exchange.getRequestMethod())) return null;
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String type = String.valueOf(exchange.getRequestHeaders().getFirst("Content-Type"));
    return type.startsWith("application/x-www-form-urlencoded") ? param(body) : body;
  }

  private static String param(String encoded) {
    if (encoded == null) return null;
    for (String pair : encoded.split("&")) {
      if (pair.startsWith("query=")) return URLDecoder.decode(pair.substring(6), StandardCharsets.UTF_8);
    }
    return null;
  }

  private static void reply(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }
}
