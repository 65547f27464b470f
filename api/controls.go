package api

// Velocity control enums.
const (
	AggregationSum   = "VELOCITY_CONTROL_AGGREGATION_METHOD_SUM"
	AggregationCount = "VELOCITY_CONTROL_AGGREGATION_METHOD_COUNT"

	OperatorLessThan           = "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN"
	OperatorLessThanOrEqual    = "VELOCITY_CONTROL_AGGREGATION_OPERATOR_LESS_THAN_OR_EQUAL"
	OperatorEqual              = "VELOCITY_CONTROL_AGGREGATION_OPERATOR_EQUAL"
	OperatorGreaterThanOrEqual = "VELOCITY_CONTROL_AGGREGATION_OPERATOR_GREATER_THAN_OR_EQUAL"
	OperatorGreaterThan        = "VELOCITY_CONTROL_AGGREGATION_OPERATOR_GREATER_THAN"
)

// Empty is one of the reference's empty option objects ({}), whose presence is the choice.
type Empty struct{}

// CreateVelocityControlIntent is ACTIVITY_TYPE_CREATE_VELOCITY_CONTROL: an aggregate over time that policies read as
// controls.<identifier>.
type CreateVelocityControlIntent struct {
	Name        string                    `json:"name"`
	DataSource  VelocityControlDataSource `json:"dataSource"`
	Aggregation VelocityAggregation       `json:"aggregation"`
	Identifier  string                    `json:"identifier"`
}

// VelocityControlDataSource is what a control measures: one of the two.
type VelocityControlDataSource struct {
	ChainAssetTransfer *ChainAssetTransferSource `json:"chainAssetTransfer,omitempty"`
	ActivityExecution  *ActivityExecutionSource  `json:"activityExecution,omitempty"`
}

// ChainAssetTransferSource measures transfers of the listed assets in what is signed.
type ChainAssetTransferSource struct {
	Definition []AssetDefinition `json:"definition"`
	Filter     *ActivityFilter   `json:"filter,omitempty"`
	Phase      *VelocityPhase    `json:"phase,omitempty"`
}

// AssetDefinition is an asset by CAIP-19 id with its decimals ("0" to "255").
type AssetDefinition struct {
	CAIP19   string `json:"caip19"`
	Decimals string `json:"decimals"`
}

// ActivityFilter limits a data source to activity types.
type ActivityFilter struct {
	Activity []ActivityTypeFilter `json:"activity,omitempty"`
}

// ActivityTypeFilter names one activity type.
type ActivityTypeFilter struct {
	ActivityType string `json:"activityType"`
}

// VelocityPhase is when a transfer is measured: at signature (the default, the only one Sigil measures).
type VelocityPhase struct {
	Signature  *Empty `json:"signature,omitempty"`
	Submission *Empty `json:"submission,omitempty"`
}

// ActivityExecutionSource counts executed activities.
type ActivityExecutionSource struct {
	Filter *ActivityFilter `json:"filter,omitempty"`
}

// VelocityAggregation is the aggregate and the comparison that makes the control pass.
type VelocityAggregation struct {
	Method    string          `json:"method"`
	Operator  string          `json:"operator"`
	Threshold string          `json:"threshold"` // decimal, at most 38 digits of which 18 after the point
	Window    VelocityWindow  `json:"window"`
	GroupBy   VelocityGroupBy `json:"groupBy"`
}

// VelocityWindow is a rolling window (seconds) or all time.
type VelocityWindow struct {
	Rolling  *RollingWindow `json:"rolling,omitempty"`
	Infinite *Empty         `json:"infinite,omitempty"`
}

// RollingWindow is a window's length in seconds, as a decimal string.
type RollingWindow struct {
	Duration string `json:"duration"`
}

// VelocityGroupBy partitions the aggregate: one bucket for the organization, per user or per wallet.
type VelocityGroupBy struct {
	Organization *Empty `json:"organization,omitempty"`
	User         *Empty `json:"user,omitempty"`
	Wallet       *Empty `json:"wallet,omitempty"`
}

// CreateVelocityControlResult names the new control.
type CreateVelocityControlResult struct {
	VelocityControlID string `json:"velocityControlId"`
}

// DeleteVelocityControlIntent is ACTIVITY_TYPE_DELETE_VELOCITY_CONTROL.
type DeleteVelocityControlIntent struct {
	VelocityControlID string `json:"velocityControlId"`
}

// DeleteVelocityControlResult names the deleted control.
type DeleteVelocityControlResult struct {
	VelocityControlID string `json:"velocityControlId"`
}

// VelocityControl is a control as the queries return it.
type VelocityControl struct {
	VelocityControlID string                    `json:"velocityControlId"`
	OrganizationID    string                    `json:"organizationId"`
	Name              string                    `json:"name"`
	DataSource        VelocityControlDataSource `json:"dataSource"`
	Aggregation       VelocityAggregation       `json:"aggregation"`
	CreatedAt         Timestamp                 `json:"createdAt"`
	UpdatedAt         Timestamp                 `json:"updatedAt"`
	Identifier        string                    `json:"identifier"`
}

// GetVelocityControlRequest is the body of get_velocity_control.
type GetVelocityControlRequest struct {
	OrganizationID    string `json:"organizationId"`
	VelocityControlID string `json:"velocityControlId"`
}

// GetVelocityControlResponse is one control.
type GetVelocityControlResponse struct {
	VelocityControl VelocityControl `json:"velocityControl"`
}

// ListVelocityControlsRequest is the body of list_velocity_controls.
type ListVelocityControlsRequest struct {
	OrganizationID    string      `json:"organizationId"`
	PaginationOptions *Pagination `json:"paginationOptions,omitempty"`
}

// ListVelocityControlsResponse is a page of controls, oldest first.
type ListVelocityControlsResponse struct {
	VelocityControls []VelocityControl `json:"velocityControls"`
	PageInfo         PageInfo          `json:"pageInfo"`
}

// PageInfo says where a page stands among the others.
type PageInfo struct {
	HasNextPage     bool   `json:"hasNextPage"`
	HasPreviousPage bool   `json:"hasPreviousPage"`
	StartCursor     string `json:"startCursor,omitempty"`
	EndCursor       string `json:"endCursor,omitempty"`
}

// ControlMeasure is Sigil's report of one velocity control in evaluate_activity: the aggregate in the window now, what
// the activity would add, and whether the control passes with it.
type ControlMeasure struct {
	Identifier string `json:"identifier"`
	Aggregate  string `json:"aggregate"`
	Adds       string `json:"adds"`
	Operator   string `json:"operator"`
	Threshold  string `json:"threshold"`
	Passes     bool   `json:"passes"`
	// Error is why the control cannot measure the activity (it may move a measured asset by an amount that cannot be
	// read): controls.<identifier> is then an evaluation error, and no policy it gates allows the activity.
	Error string `json:"error,omitempty"`
}

// The activity types of this file.
var (
	CreateVelocityControl = activity[CreateVelocityControlIntent, CreateVelocityControlResult](
		"CREATE_VELOCITY_CONTROL", "create_velocity_control", "createVelocityControlIntent", "createVelocityControlResult")
	DeleteVelocityControl = activity[DeleteVelocityControlIntent, DeleteVelocityControlResult](
		"DELETE_VELOCITY_CONTROL", "delete_velocity_control", "deleteVelocityControlIntent", "deleteVelocityControlResult")
)

// The queries of this file.
var (
	GetVelocityControl   = query[GetVelocityControlRequest, GetVelocityControlResponse]("get_velocity_control")
	ListVelocityControls = query[ListVelocityControlsRequest, ListVelocityControlsResponse]("list_velocity_controls")
)
