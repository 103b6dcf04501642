package bugs

// UndeclaredRead is a correct consumer (as (g)) that also copies the
// customer of each placed event into its state: it reads /customerId,
// which Contract does not list. A contract run catches it and names the
// field.
const UndeclaredRead Bug = "undeclared-read"

// ContractCatalogue lists the consumers whose bug is in what they read,
// caught by a contract run (consumer.contract), not by faults.
//
//	(q) undeclared-read  reads /customerId of placed events, which its
//	                     contract does not list
var ContractCatalogue = []Entry{
	{"q", UndeclaredRead, "reads a field its contract does not list", nil},
}

// Contract is the contract of the catalogue's consumers: the fields the
// correct consumer reads (the order, its version, the paid amount and the
// parcels), which undeclared-read also uses but for /customerId.
const Contract = `owner: team-qa
reads:
  com.example.order.placed:
    versions: [1, 2]
    fields: [/orderId, /orderVersion]
  com.example.order.paid:
    versions: [1]
    fields: [/orderId, /orderVersion, /amount/amountMinor]
  com.example.order.shipped:
    versions: [1]
    fields: [/orderId, /orderVersion, /parcels]
`
