// One-shot init step of deploy/compose.yaml (the mongo-init service), run
// with mongosh against the single replica-set member. Safe to run on every
// `docker compose up`:
//   1. authenticates as the root user the mongo image created;
//   2. initiates the replica set rs0 with the one member mongo:27017, unless
//      it is initiated already;
//   3. waits until the member is primary;
//   4. creates the service's user with readWrite on its database only (which
//      includes createIndex and dropIndex), or resets its password to the
//      value in .env when the user exists.
// Never run on the project's machines: the mongo:7.0 image needs a registry,
// and compose.local.yaml replaces this step (FerretDB has no replica set or
// users to create).

const env = process.env;
const required = ["MONGO_ROOT_USERNAME", "MONGO_ROOT_PASSWORD", "MONGO_APP_USERNAME", "MONGO_APP_PASSWORD", "MONGO_APP_DATABASE"];
for (const name of required) {
  if (!env[name]) {
    print(`mongo-init: ${name} is not set`);
    quit(1);
  }
}

const admin = db.getSiblingDB("admin");
admin.auth(env.MONGO_ROOT_USERNAME, env.MONGO_ROOT_PASSWORD);

try {
  rs.status();
  print("mongo-init: replica set already initiated");
} catch (e) {
  if (e.codeName !== "NotYetInitialized") {
    throw e;
  }
  rs.initiate({ _id: "rs0", members: [{ _id: 0, host: "mongo:27017" }] });
  print("mongo-init: replica set rs0 initiated");
}

let waited = 0;
while (!admin.runCommand({ hello: 1 }).isWritablePrimary) {
  if (waited >= 60000) {
    print("mongo-init: no primary after 60 s");
    quit(1);
  }
  sleep(500);
  waited += 500;
}

const roles = [{ role: "readWrite", db: env.MONGO_APP_DATABASE }];
if (admin.getUser(env.MONGO_APP_USERNAME) === null) {
  admin.createUser({ user: env.MONGO_APP_USERNAME, pwd: env.MONGO_APP_PASSWORD, roles: roles });
  print(`mongo-init: created user ${env.MONGO_APP_USERNAME} (readWrite on ${env.MONGO_APP_DATABASE})`);
} else {
  admin.updateUser(env.MONGO_APP_USERNAME, { pwd: env.MONGO_APP_PASSWORD, roles: roles });
  print(`mongo-init: user ${env.MONGO_APP_USERNAME} exists; password and roles set from .env`);
}
