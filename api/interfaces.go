package api

// Smart contract interface types: the ABI of an EVM contract, or the IDL of a Solana program.
const (
	InterfaceTypeEthereum = "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM"
	InterfaceTypeSolana   = "SMART_CONTRACT_INTERFACE_TYPE_SOLANA"
)

// CreateSmartContractInterfaceIntent is ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE: an ABI (or IDL) as a JSON string
// of at most 400 KB, for one contract address (or program id).
type CreateSmartContractInterfaceIntent struct {
	SmartContractAddress   string `json:"smartContractAddress"`
	SmartContractInterface string `json:"smartContractInterface"`
	Type                   string `json:"type"`
	Label                  string `json:"label"`
	Notes                  string `json:"notes,omitempty"`
}

// CreateSmartContractInterfaceResult names the new interface.
type CreateSmartContractInterfaceResult struct {
	SmartContractInterfaceID string `json:"smartContractInterfaceId"`
}

// DeleteSmartContractInterfaceIntent is ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE.
type DeleteSmartContractInterfaceIntent struct {
	SmartContractInterfaceID string `json:"smartContractInterfaceId"`
}

// DeleteSmartContractInterfaceResult names the deleted interface.
type DeleteSmartContractInterfaceResult struct {
	SmartContractInterfaceID string `json:"smartContractInterfaceId"`
}

// SmartContractInterface is an uploaded interface as the queries return it.
type SmartContractInterface struct {
	OrganizationID           string    `json:"organizationId"`
	SmartContractInterfaceID string    `json:"smartContractInterfaceId"`
	SmartContractAddress     string    `json:"smartContractAddress"`
	SmartContractInterface   string    `json:"smartContractInterface"`
	Type                     string    `json:"type"`
	Label                    string    `json:"label"`
	Notes                    string    `json:"notes"`
	CreatedAt                Timestamp `json:"createdAt"`
	UpdatedAt                Timestamp `json:"updatedAt"`
}

// GetSmartContractInterfaceRequest is the body of get_smart_contract_interface.
type GetSmartContractInterfaceRequest struct {
	OrganizationID           string `json:"organizationId"`
	SmartContractInterfaceID string `json:"smartContractInterfaceId"`
}

// GetSmartContractInterfaceResponse is one interface.
type GetSmartContractInterfaceResponse struct {
	SmartContractInterface SmartContractInterface `json:"smartContractInterface"`
}

// GetSmartContractInterfacesResponse lists the organization's interfaces.
type GetSmartContractInterfacesResponse struct {
	SmartContractInterfaces []SmartContractInterface `json:"smartContractInterfaces"`
}

// The activity types of this file.
var (
	CreateSmartContractInterface = activity[CreateSmartContractInterfaceIntent, CreateSmartContractInterfaceResult](
		"CREATE_SMART_CONTRACT_INTERFACE", "create_smart_contract_interface", "createSmartContractInterfaceIntent", "createSmartContractInterfaceResult")
	DeleteSmartContractInterface = activity[DeleteSmartContractInterfaceIntent, DeleteSmartContractInterfaceResult](
		"DELETE_SMART_CONTRACT_INTERFACE", "delete_smart_contract_interface", "deleteSmartContractInterfaceIntent", "deleteSmartContractInterfaceResult")
)

// The queries of this file.
var (
	GetSmartContractInterface  = query[GetSmartContractInterfaceRequest, GetSmartContractInterfaceResponse]("get_smart_contract_interface")
	GetSmartContractInterfaces = query[OrganizationRequest, GetSmartContractInterfacesResponse]("list_smart_contract_interfaces")
)
