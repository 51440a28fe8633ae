// SesameDelivery
