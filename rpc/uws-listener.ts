// Listening and closing for a uWS app, shared by the REST and WebSocket servers.
import uWS from '@trufflesuite/uws-js-unofficial';

export class UwsListener {
  private socket: uWS.us_listen_socket | null = null;

  constructor(private readonly app: uWS.TemplatedApp) {}

  /** Listens on host:port (0 picks a free port); resolves with the port. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.app.listen(host, port, (token) => {
        if (!token) return reject(new Error(`cannot listen on ${host}:${port}`));
        this.socket = token;
        resolve(uWS.us_socket_local_port(token as unknown as uWS.us_socket));
      });
    });
  }

  /** Stops accepting connections; open ones stay (their pending answers go out). */
  stopListening(): void {
    if (this.socket !== null) uWS.us_listen_socket_close(this.socket);
    this.socket = null;
  }

  /** Stops listening and ends open connections (keep-alive and WebSocket ones included). */
  close(): void {
    if (this.socket !== null) uWS.us_listen_socket_close(this.socket);
    this.socket = null;
    // close() is present in this build though missing from its typings.
    (this.app as unknown as { close(): void }).close();
  }
}
