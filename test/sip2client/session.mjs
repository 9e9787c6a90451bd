// A kiosk session run by sip2-async (node_modules/sip2-async, unchanged),
// a SIP2 client nobody here wrote: sign in, status, a patron, a copy, a
// check-out, a renewal and a check-in. Each answer, as the client parsed
// it, is printed as one JSON line for the Go test to check.
//
//   node session.mjs HOST PORT LOGIN PASSWORD PATRON ITEM [--crlf]
import SIP2 from 'sip2-async'

const [host, port, login, password, patron, item] = process.argv.slice(2)
const client = new SIP2.Client({ host, port: Number(port), terminator: process.argv.includes('--crlf') ? 'CRLF' : 'CR', dueDateFormat: 'YYYYMMDD' })
client.connect()
await new Promise((resolve, reject) => {
  client.socket.once('connect', resolve)
  client.socket.once('error', reject)
})
const steps = [
  ['login', new SIP2.LoginRequest(login, password, 'MAIN')],
  ['status', new SIP2.SCStatusRequest('0', '040', '2.00')],
  ['patron', Object.assign(new SIP2.PatronInformationRequest('charged', 1, 5), { patronIdentifier: patron })],
  ['item', new SIP2.ItemInformationRequest(item)],
  ['checkout', Object.assign(new SIP2.CheckoutRequest(true, ' '.repeat(18), item), { patronIdentifier: patron })],
  ['renew', Object.assign(new SIP2.RenewRequest(item, ' '.repeat(18)), { patronIdentifier: patron })],
  ['checkin', new SIP2.CheckinRequest(null, 'MAIN', item)]
]
let seq = 0
for (const [name, req] of steps) {
  Object.assign(req, { sequence: seq++ % 10, institutionId: 'MGS' })
  const answer = await Promise.race([
    client.send(req.getMessage()),
    new Promise((resolve, reject) => setTimeout(() => reject(new Error('no answer within 15 s')), 15000).unref())
  ])
  console.log(JSON.stringify({ step: name, answer }))
}
client.close()
